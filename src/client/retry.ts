// BUSY, and only BUSY, is retried (spec: nothing reached the world, so repeating the call is safe).
// Every other error, a timeout included, may have reached the world or will not change by waiting.

export interface RetryPolicy {
  /** Retries after the first BUSY; 0 turns retrying off. */
  retries: number;
  /** The first wait; it doubles with each retry. */
  baseDelayMs: number;
  /** The longest single wait. A Retry-After beyond it ends the retries rather than being cut short. */
  maxDelayMs: number;
}

/** Each BUSY already took the bridge's 5 s admission wait, so 4 retries span about half a minute. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ retries: 4, baseDelayMs: 500, maxDelayMs: 8_000 });

export function retryPolicy(option: Partial<RetryPolicy> | false | undefined, base: Readonly<RetryPolicy> = DEFAULT_RETRY): RetryPolicy {
  if (option === false) return { ...base, retries: 0 };
  return { ...base, ...option };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (1-based), or null for no more retries: the
 * exponential backoff, never shorter than the bridge's Retry-After, at most `maxDelayMs`.
 */
export function retryDelay(retry: number, retryAfter: string | null | undefined, policy: RetryPolicy, now = Date.now()): number | null {
  if (retry > policy.retries) return null;
  const backoff = policy.baseDelayMs * 2 ** (retry - 1);
  const floor = parseRetryAfter(retryAfter, now) ?? 0;
  if (floor > policy.maxDelayMs) return null;
  return Math.min(policy.maxDelayMs, Math.max(floor, backoff));
}
