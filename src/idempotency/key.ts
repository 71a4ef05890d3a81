// decisions §8: the Idempotency-Key header's syntax, and what a request is the same as.
import { createHash } from 'node:crypto';
import { LIMITS } from '../limits.ts';

// Printable ASCII without the space: a key with spaces or control characters is refused.
const KEY = /^[\x21-\x7e]+$/;

/** Why `key` is not a usable Idempotency-Key, or null. */
export function keyProblem(key: string): string | null {
  if (key.length === 0 || key.length > LIMITS.idempotencyKeyMaxLength || !KEY.test(key)) {
    const shown = key.length > 64 ? `${key.length} characters` : `'${key.replace(/[^\x20-\x7e]/g, '?')}'`;
    return `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyMaxLength} printable ASCII characters without spaces (got ${shown}); a UUID is a good key`;
  }
  return null;
}

/**
 * The request a key stands for: its name and args. A digest, so a kept key costs a few dozen bytes
 * whatever the size of the args (load_world's bytes_b64 may be megabytes).
 */
export function fingerprint(name: string, args: unknown): string {
  return createHash('sha256').update(name).update('\0').update(JSON.stringify(args)).digest('base64');
}
