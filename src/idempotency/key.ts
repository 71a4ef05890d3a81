// decisions §8: the Idempotency-Key header's syntax, and what a request is the same as.
import { createHash } from 'node:crypto';
import { LIMITS } from '../limits.ts';

// Printable ASCII without the space: a key with spaces or control characters is refused.
const KEY = /^[\x21-\x7e]+$/;

/** Why `key` is not a usable Idempotency-Key, or null. */
export function keyProblem(key: string): string | null {
  if (key.length > LIMITS.idempotencyKeyMaxLength || !KEY.test(key)) {
    const shown = key.length > 64 ? `${key.length} characters` : `'${key.replace(/[^\x20-\x7e]/g, '?')}'`;
    return `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyMaxLength} printable ASCII characters without spaces (got ${shown}); a UUID is a good key`;
  }
  return null;
}

/**
 * The request a key stands for: its name and args. A digest, so a kept key costs a few dozen bytes
 * whatever the size of the args (load_world's bytes_b64 may be megabytes). Members are taken in
 * sorted order: `{"x":1,"y":2}` and `{"y":2,"x":1}` are the same args, however a client's JSON
 * library orders them on a retry.
 */
export function fingerprint(name: string, args: unknown): string {
  return createHash('sha256').update(name).update('\0').update(JSON.stringify(args, sortedMembers)).digest('base64');
}

function sortedMembers(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // Object.fromEntries defines each member as its own, `__proto__` included (a JSON `__proto__` member is an own one too).
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, (value as Record<string, unknown>)[key]]),
  );
}
