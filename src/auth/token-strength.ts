// decisions §11: the weak-token rule for agent tokens, and a strong token for `gcb token --new`.
import { generateToken } from '../config/load.ts';
import { sha256 } from './credentials.ts';

export const TOKEN_MIN_LENGTH = 32;
export const TOKEN_MIN_DISTINCT = 16;

/** Why a token is weak, or null when it is strong enough. Never quotes the token. */
export function tokenWeakness(token: string): string | null {
  if (token.length < TOKEN_MIN_LENGTH) return `is shorter than ${TOKEN_MIN_LENGTH} characters`;
  if (new Set(token).size < TOKEN_MIN_DISTINCT) return `has fewer than ${TOKEN_MIN_DISTINCT} distinct characters`;
  return null;
}

/** A fresh strong token (48 characters of [A-Za-z0-9] from crypto) and its SHA-256 in hex. */
export function newAgentToken(): { token: string; token_sha256: string } {
  let token = generateToken();
  // 48 draws from 62 characters give fewer than 16 distinct ones practically never; check anyway.
  while (tokenWeakness(token) !== null) token = generateToken();
  return { token, token_sha256: sha256(token).toString('hex') };
}
