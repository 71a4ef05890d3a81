// decisions §11: the weak-token rule for agent tokens, and a strong token for `gcb token --new`.
import { randomInt } from 'node:crypto';
import { LIMITS } from '../limits.ts';
import { sha256 } from './credentials.ts';

export const TOKEN_MIN_LENGTH = 32;
export const TOKEN_MIN_DISTINCT = 16;

/** Why a token is weak, or null when it is strong enough. Never quotes the token. */
export function tokenWeakness(token: string): string | null {
  if (token.length < TOKEN_MIN_LENGTH) return `is shorter than ${TOKEN_MIN_LENGTH} characters`;
  if (new Set(token).size < TOKEN_MIN_DISTINCT) return `has fewer than ${TOKEN_MIN_DISTINCT} distinct characters`;
  return null;
}

/**
 * A fresh strong token (48 characters of [A-Za-z0-9] from crypto) and its SHA-256 in hex. `draw`:
 * where tokens come from (a test passes its own).
 */
export function newAgentToken(draw: () => string = generateToken): { token: string; token_sha256: string } {
  let token = draw();
  // 48 draws from 62 characters give fewer than 16 distinct ones practically never; check anyway.
  while (tokenWeakness(token) !== null) token = draw();
  return { token, token_sha256: sha256(token).toString('hex') };
}

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * decisions §1: 48 characters of [A-Za-z0-9] from crypto (randomInt is unbiased). Here rather than
 * in config/load.ts: every `gcb` command imports this module, and importing that one loaded ajv and
 * compiled the config schemas, ~300 ms of CPU a start (`gcb --help`: 0.48 → 0.16 s).
 */
export function generateToken(): string {
  let token = '';
  for (let i = 0; i < LIMITS.tokenLength; i++) token += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return token;
}
