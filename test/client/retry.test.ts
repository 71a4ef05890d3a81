// The retry arithmetic: exponential backoff, never shorter than Retry-After, bounded.
import t from 'tap';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay } from '../../src/client/retry.ts';

t.test('Retry-After: delta-seconds or an HTTP date', async (t) => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  t.equal(parseRetryAfter('1', now), 1000);
  t.equal(parseRetryAfter(' 0 ', now), 0);
  t.equal(parseRetryAfter('Tue, 01 Jan 2030 00:00:03 GMT', now), 3000);
  t.equal(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now), 0, 'a date in the past: now');
  t.equal(parseRetryAfter('soon', now), undefined);
  t.equal(parseRetryAfter(null, now), undefined);
});

t.test('backoff doubles, Retry-After is a floor, maxDelayMs a ceiling, retries a count', async (t) => {
  const policy = { retries: 4, baseDelayMs: 500, maxDelayMs: 3000 };
  t.equal(retryDelay(1, null, policy), 500);
  t.equal(retryDelay(2, null, policy), 1000);
  t.equal(retryDelay(3, null, policy), 2000);
  t.equal(retryDelay(4, null, policy), 3000, 'capped');
  t.equal(retryDelay(5, null, policy), null, 'no fifth retry');
  t.equal(retryDelay(1, '1', policy), 1000, 'Retry-After above the backoff');
  t.equal(retryDelay(3, '1', policy), 2000, 'the backoff above Retry-After');
  t.equal(retryDelay(1, '4', policy), null, 'a Retry-After beyond the bound ends the retries instead of being cut short');
  t.equal(retryDelay(1, null, { ...policy, retries: 0 }), null);
  t.same(DEFAULT_RETRY, { retries: 4, baseDelayMs: 500, maxDelayMs: 8000 });
});
