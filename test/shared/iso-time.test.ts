// isoTime formats a time exactly as Date.prototype.toISOString does, whichever second it falls in.
import t from 'tap';
import { isoTime } from '../../src/shared/iso-time.ts';

t.test('isoTime equals toISOString, within a second, across seconds and at the edges of a millisecond field', async (t) => {
  const base = Date.UTC(2026, 10, 27, 11, 59, 59);
  const times = [
    base,
    base + 1,
    base + 9,
    base + 10,
    base + 99,
    base + 100,
    base + 999,
    base + 1000,
    base + 1001,
    base - 1,
    0,
    1,
    253402300799999,
    253402300800000,
  ];
  for (const ms of times) t.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  // Back to an earlier second after a later one: the cached second is replaced, not assumed to grow.
  t.equal(isoTime(base + 5), new Date(base + 5).toISOString());
});

t.test('isoTime() with no argument is now', async (t) => {
  const before = Date.now();
  const parsed = Date.parse(isoTime());
  t.ok(parsed >= before && parsed <= Date.now());
});
