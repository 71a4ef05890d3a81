// The seeded generator: repeatable, in range, and different per seed.
import t from 'tap';
import { chancePerMille, hash32, nextFloat, nextInt, nextU32, seedRng } from '../../src/game/rng.ts';

t.test('same seed, same sequence; different seed, different sequence', (t) => {
  const a = seedRng(1234);
  const b = seedRng(1234);
  const c = seedRng(1235);
  const seqA = Array.from({ length: 100 }, () => nextU32(a));
  t.same(
    Array.from({ length: 100 }, () => nextU32(b)),
    seqA,
  );
  t.not(JSON.stringify(Array.from({ length: 100 }, () => nextU32(c))), JSON.stringify(seqA));
  t.not(JSON.stringify(Array.from(seedRng(1234, 1))), JSON.stringify(Array.from(seedRng(1234, 0))), 'streams differ');
  t.end();
});

t.test('the state is four words that carry on where they stopped', (t) => {
  const s = seedRng(9);
  for (let n = 0; n < 10; n++) nextU32(s);
  const copy = s.slice();
  t.equal(nextU32(copy), nextU32(s));
  t.end();
});

t.test('ranges and rough uniformity', (t) => {
  const s = seedRng(5);
  const buckets = new Array(10).fill(0);
  for (let n = 0; n < 100_000; n++) {
    const f = nextFloat(s);
    if (f < 0 || f >= 1) t.fail('float out of range');
    buckets[Math.floor(f * 10)]++;
    const i = nextInt(s, 7);
    if (i < 0 || i >= 7 || !Number.isInteger(i)) t.fail('int out of range');
  }
  for (const b of buckets) t.ok(b > 9_000 && b < 11_000, `bucket ${b}`);
  let hits = 0;
  for (let n = 0; n < 100_000; n++) if (chancePerMille(s, 250)) hits++;
  t.ok(hits > 24_000 && hits < 26_000, `${hits} hits at 25%`);
  t.end();
});

t.test('hash32 is a stateless 32-bit hash', (t) => {
  t.equal(hash32(42), hash32(42));
  t.not(hash32(42), hash32(43));
  t.ok(hash32(-1) >= 0 && hash32(-1) <= 0xffffffff);
  t.end();
});
