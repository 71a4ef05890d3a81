// decisions §13: the event history is bounded by `[Bridge] event_history` in count and by bytes
// (64 MiB; smaller here), whichever comes first; a resumer from before the oldest kept event gets
// the gap.
import fc from 'fast-check';
import pino from 'pino';
import t from 'tap';
import { ALL_PERMISSIONS } from '../../src/auth/permissions.ts';
import { EventHub } from '../../src/events/hub.ts';
import { allKinds } from '../../src/events/kinds.ts';
import { EventRing } from '../../src/events/ring.ts';
import { LIMITS } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

const god: CallerContext = {
  agentId: 'legacy',
  agentIndex: 0,
  role: 'god',
  permissions: ALL_PERMISSIONS,
  claimedKingdomId: null,
  scenario: 'pvp',
  partialIntel: false,
  turnBased: false,
  legacyMode: true,
};

interface Item {
  seq: number;
  bytes: number;
}

function kept(ring: EventRing<Item>): Item[] {
  const out: Item[] = [];
  ring.forEachAfter(0, (item) => (out.push(item), true));
  return out;
}

t.test('ring: the bytes kept never pass maxBytes; the newest is kept, contiguous, oldest dropped first', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 1, max: 2000 }),
      fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 300 }),
      (capacity, maxBytes, sizes) => {
        const ring = new EventRing<Item>(capacity, maxBytes);
        for (const [i, bytes] of sizes.entries()) {
          const seq = i + 1;
          ring.push({ seq, bytes });
          const items = kept(ring);
          const sum = items.reduce((n, item) => n + item.bytes, 0);
          if (ring.bytes !== sum || sum > maxBytes || items.length > capacity) return false;
          if (items.some((item, k) => item.seq !== items[0]!.seq + k)) return false;
          if (bytes <= maxBytes ? items.at(-1)?.seq !== seq : items.length !== 0) return false;
          // Nothing was dropped that would have fitted: one more of the older ones would pass a bound.
          const before = items.length === 0 ? undefined : items[0]!.seq - 1;
          if (bytes <= maxBytes && before !== undefined && before >= 1) {
            const older = sizes[before - 1]!;
            if (items.length < capacity && sum + older <= maxBytes) return false;
          }
        }
        return true;
      },
    ),
    { numRuns: 500 },
  );
  t.pass('500 runs of capacity, byte bound and event sizes');

  const ring = new EventRing<Item>(100, 1000);
  for (let seq = 1; seq <= 10; seq++) ring.push({ seq, bytes: 300 });
  t.same(
    kept(ring).map((item) => item.seq),
    [8, 9, 10],
    'bytes first: three of 300 fit in 1000',
  );
  t.equal(ring.bytes, 900);
  ring.push({ seq: 11, bytes: 1001 });
  t.equal(ring.oldestSeq, undefined, 'an event larger than the whole bound is not kept, nor anything before it');
  t.equal(ring.bytes, 0);
  ring.push({ seq: 12, bytes: 10 });
  t.equal(ring.oldestSeq, 12);
  const counted = new EventRing<Item>(3, 1000);
  for (let seq = 1; seq <= 5; seq++) counted.push({ seq, bytes: 1 });
  t.same(
    kept(counted).map((item) => item.seq),
    [3, 4, 5],
    'count first: small events, three kept',
  );
});

t.test('hub: the history holds at most historyBytes of event JSON; a resumer from before it gets the gap', async (t) => {
  const limit = 4096;
  const hub = new EventHub({
    history: 10_000,
    historyBytes: limit,
    maxStreams: 4,
    multiAgent: false,
    tick: () => 7,
    keepAliveMs: 60_000,
    log: pino({ level: 'silent' }),
    kinds: allKinds(['ping']),
  });
  const recv = (since: number) => {
    const out = hub.recv({ since_seq: since, max: 1000 }, god, undefined);
    if (out instanceof Promise || !out.ok) throw new Error('recv_events should answer at once');
    return out.value;
  };
  let most = 0;
  for (let i = 1; i <= 200; i++) {
    hub.emit('ping', { i, pad: 'x'.repeat(i % 7 === 0 ? 900 : 100) });
    const held = recv(0).items.reduce((n, json) => n + Buffer.byteLength(json), 0);
    most = Math.max(most, held);
    if (held > limit) t.fail(`after ${i} events the history holds ${held} bytes`);
  }
  t.ok(most > limit - 1000, `the history fills up to its bound (at most ${most} of ${limit} bytes held)`);
  const all = recv(0);
  t.ok(all.count < 200 && all.count > 4, `${all.count} of 200 events kept`);
  t.equal(all.oldest_seq, 200 - all.count + 1);
  t.same(all.gap, { from: 1, to: all.oldest_seq - 1 }, 'a resumer from 0 gets the gap');
  t.same(
    all.items.map((json) => JSON.parse(json).i),
    Array.from({ length: all.count }, (_, k) => all.oldest_seq + k),
    'the newest events, in order',
  );
  const resumed = recv(all.oldest_seq - 1);
  t.notOk('gap' in resumed, 'a resumer from just before the oldest kept misses nothing');
  t.equal(resumed.count, all.count);
  await hub.stop();
});

t.test('the default byte bound is 64 MiB', async (t) => {
  t.equal(LIMITS.eventHistoryBytes, 64 * 1024 * 1024);
});
