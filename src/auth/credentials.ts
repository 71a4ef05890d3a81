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
  /** SHA-256 of the token: the table never needs the token itself (agents.json may hold only this). */
  digest: Buffer;
  caller: CallerContext;
}

/**
 * The credential table. Every presented token is hashed and compared against every entry with
 * timingSafeEqual, with no early exit, so the time taken says nothing about which bytes matched.
 */
export class CredentialTable {
  readonly #entries: readonly Credential[];

  constructor(entries: readonly Credential[]) {
    this.#entries = entries;
  }

  resolve(token: string | undefined): CallerContext | null {
    if (token === undefined || token === '') return null;
    const digest = sha256(token);
    let found: CallerContext | null = null;
    for (const entry of this.#entries) {
      if (timingSafeEqual(digest, entry.digest) && found === null) found = entry.caller;
    }
    return found;
  }
}
