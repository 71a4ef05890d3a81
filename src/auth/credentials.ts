import { createHash, timingSafeEqual } from 'node:crypto';
import type { CallerContext } from '../shared/caller.ts';

/**
 * spec Authentication 2: `Authorization: Bearer` first, then `X-WB-Token`. Per decisions §5, when
 * Authorization carries a Bearer credential (scheme in any case) it alone decides, even if wrong;
 * X-WB-Token is read only when there is none. Returns undefined when no credential is presented.
 */
export function presentedToken(authorization: string | undefined, xWbToken: string | undefined): string | undefined {
  if (authorization !== undefined) {
    const space = authorization.indexOf(' ');
    const scheme = space === -1 ? authorization : authorization.slice(0, space);
    if (scheme.toLowerCase() === 'bearer') return space === -1 ? '' : authorization.slice(space + 1).trim();
  }
  return xWbToken;
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export interface Credential {
  /** SHA-256 of the token (agents.json may hold only this). */
  digest: Buffer;
  /** The token's bytes, when known: compared directly, which spares a hash on every request. */
  raw?: Buffer;
  caller: CallerContext;
}

/**
 * The credential table. A presented token is compared against every entry with timingSafeEqual,
 * with no early exit, so the time taken says nothing about which bytes matched: byte for byte
 * against raw tokens (only the length, which is public, decides whether bytes are compared), and
 * as a SHA-256 digest, computed once, against entries that hold only a digest.
 */
export class CredentialTable {
  #table: Table;

  constructor(entries: readonly Credential[]) {
    this.#table = tableOf(entries);
  }

  /** decisions §10: the table after an agents.json reload; requests that start after it see it. */
  replace(entries: readonly Credential[]): void {
    this.#table = tableOf(entries);
  }

  resolve(token: string | undefined): CallerContext | null {
    // An empty credential (`Bearer` alone) never matches, not even an entry holding the empty string's digest.
    if (token === undefined || token === '') return null;
    const { entries, scratch, windows } = this.#table;
    const written = scratch.write(token);
    // Hashed at the first entry that holds only a digest, if any: where that is says nothing of the token.
    let digest: Buffer | null = null;
    let found: CallerContext | null = null;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const match = entry.raw
        ? written === entry.raw.length && timingSafeEqual(windows[i]!, entry.raw)
        : timingSafeEqual((digest ??= sha256(token)), entry.digest);
      // No token matches two entries (parseAgents refuses a token or digest used twice): whichever match is kept is the one.
      if (match) found = entry.caller;
    }
    return found;
  }
}

interface Table {
  entries: readonly Credential[];
  /**
   * The presented token's UTF-8 bytes are written here, not into a new Buffer per request. It holds
   * four bytes more than the longest raw token, so a longer token always writes more bytes than
   * that token has (a character is at most four bytes, and write() stores only whole ones).
   */
  scratch: Buffer;
  /** For each entry with a raw token, the scratch's first bytes as long as that token (made once). */
  windows: readonly (Buffer | null)[];
}

function tableOf(entries: readonly Credential[]): Table {
  const longest = Math.max(0, ...entries.map((entry) => entry.raw?.length ?? 0));
  const scratch = Buffer.alloc(longest + 4);
  return {
    entries,
    scratch,
    windows: entries.map((entry) => (entry.raw ? scratch.subarray(0, entry.raw.length) : null)),
  };
}
