// One stream's delivery on its own, with a connection played by hand: chunks of at most chunkBytes
// (the gap first, then the backlog, then live events), the buffer's exact bound, and the three ways
// a stream ends (cleanly, the client gone, the client too slow).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { ALL_PERMISSIONS, ROLE_MASKS } from '../../src/auth/permissions.ts';
import { StoredEvent } from '../../src/events/event.ts';
import { Subscriber, type EndReason } from '../../src/events/subscriber.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

const god: CallerContext = {
  agentId: 'zeus',
  agentIndex: 0,
  role: 'god',
  permissions: ALL_PERMISSIONS,
  claimedKingdomId: null,
  scenario: 'pvp',
  partialIntel: false,
  turnBased: false,
  legacyMode: false,
};

/** An event whose SSE frame is exactly `bytes` long. */
function event(seq: number, bytes: number, kind = 'ping', kingdomIds: number[] = []): StoredEvent {
  const bare = new StoredEvent(seq, kind, 0, 'T', kingdomIds, { p: '' }, null).frame.byteLength;
  const made = new StoredEvent(seq, kind, 0, 'T', kingdomIds, { p: 'x'.repeat(bytes - bare) }, null);
  if (made.frame.byteLength !== bytes) throw new Error(`frame of ${made.frame.byteLength} bytes`);
  return made;
}

/** A connection that takes each chunk only when told to (`take()`), or at once (`auto`). */
function connection(auto = false) {
  const chunks: Uint8Array[] = [];
  const waiting: Array<() => void> = [];
  const state = { closed: 0, destroyed: 0 };
  return {
    chunks,
    state,
    texts: () => chunks.map((chunk) => Buffer.from(chunk).toString()),
    ids: () =>
      chunks.map((chunk) =>
        [
          ...Buffer.from(chunk)
            .toString()
            .matchAll(/^id: (\d+)$/gm),
        ].map((m) => Number(m[1])),
      ),
    take: async () => {
      waiting.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
    sink: {
      write: (chunk: Uint8Array) => {
        chunks.push(chunk);
        return auto ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve));
      },
      close: async () => {
        state.closed++;
      },
      destroy: () => {
        state.destroyed++;
      },
    },
  };
}

function subscriber(
  conn: ReturnType<typeof connection>,
  options: { backlog?: StoredEvent[]; preamble?: string; limit?: number; chunk?: number; caller?: CallerContext; kinds?: Set<string> } = {},
) {
  const ends: EndReason[] = [];
  const s = new Subscriber({
    caller: options.caller ?? god,
    kinds: options.kinds ?? null,
    sink: conn.sink,
    preamble: options.preamble === undefined ? null : Buffer.from(options.preamble),
    backlog: options.backlog ?? [],
    limitBytes: options.limit ?? 100_000,
    chunkBytes: options.chunk ?? 1000,
    onEnd: (_s, reason) => void ends.push(reason),
  });
  return { s, ends };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('chunks: the gap, then the backlog, then live events, each chunk filled up to chunkBytes', async (t) => {
  const conn = connection();
  const backlog = [event(1, 500), event(2, 500), event(3, 500), event(4, 400), event(5, 300)];
  const { s } = subscriber(conn, { backlog, preamble: 'G'.repeat(198) + '\n\n' });
  s.offer(event(6, 500));
  s.offer(event(7, 600));
  await settle();
  t.same(conn.ids(), [[1, 2]], 'gap 200 + 500 + 500: past 1000 only with the second event');
  t.match(conn.texts()[0], /^G{198}\n\nid: 1\n/);
  await conn.take();
  t.same(
    conn.ids(),
    [
      [1, 2],
      [3, 4, 5],
    ],
    '500 + 400: under 1000, one more',
  );
  await conn.take();
  t.same(conn.ids().at(-1), [6, 7], 'the backlog done: live events');
  await conn.take();
  s.offer(event(8, 1000));
  await settle();
  t.same(conn.ids().at(-1), [8], 'exactly chunkBytes: a chunk of its own');
  const lone = event(9, 300);
  s.offer(event(10, 700));
  await conn.take();
  t.same(conn.ids().at(-1), [10]);
  await conn.take();
  s.offer(lone);
  await settle();
  t.equal(conn.chunks.at(-1), lone.frame, 'a chunk of one frame is the frame itself, not a copy');
  s.end();
  await conn.take();
  await s.done;
});

t.test('the buffer: exactly limitBytes is kept; one byte more closes the stream and drops its connection', async (t) => {
  const conn = connection();
  const { s, ends } = subscriber(conn, { limit: 3000, chunk: 1000 });
  s.offer(event(1, 1000)); // in flight
  await settle();
  s.offer(event(2, 1000));
  s.offer(event(3, 1000));
  t.same([ends, conn.state.destroyed, s.ended], [[], 0, false], '3000 of 3000 (the chunk in flight counts): kept');
  s.offerRaw(Buffer.from('!'));
  t.same([ends, conn.state.destroyed, s.ended], [['overflow'], 1, true], 'one byte more: closed');
  s.offer(event(4, 200));
  await conn.take();
  await s.done;
  t.same(conn.ids(), [[1]], 'nothing more is written');
  t.equal(conn.state.closed, 0, 'no clean end for a dropped connection');
});

t.test('end(): what is buffered is written, then the response ends; the reason is said at once, once', async (t) => {
  const conn = connection();
  const { s, ends } = subscriber(conn, { backlog: [event(1, 1000), event(2, 1000)] });
  s.offer(event(3, 500));
  await settle();
  s.end();
  t.same(ends, ['clean'], 'said when it ends, not when the last byte is written');
  t.ok(s.ended);
  s.end();
  s.abort();
  t.same(ends, ['clean'], 'once');
  s.offer(event(4, 500));
  s.offerRaw(Buffer.from(': keep-alive\n\n'));
  await conn.take();
  await conn.take();
  await conn.take();
  await s.done;
  t.same(conn.ids(), [[1], [2], [3]], 'the backlog and the live event, nothing offered after end()');
  t.notMatch(conn.texts().join(''), /keep-alive/, 'no keep-alive after end() either');
  t.equal(conn.state.closed, 1);

  const idle = connection(true);
  const quiet = subscriber(idle, {});
  await settle();
  quiet.s.end();
  await quiet.s.done;
  t.same([quiet.ends, idle.state.closed, idle.chunks.length], [['clean'], 1, 0], 'an idle stream wakes up to end');
});

t.test('abort(): the client is gone; nothing more is written and the response is not ended by the bridge', async (t) => {
  const conn = connection();
  const { s, ends } = subscriber(conn, { backlog: [event(1, 1000), event(2, 1000)] });
  s.offer(event(3, 500));
  await settle();
  s.abort();
  t.same(ends, ['client']);
  await conn.take();
  await s.done;
  t.same(conn.ids(), [[1]]);
  t.equal(conn.state.closed, 0);

  const idle = connection(true);
  const quiet = subscriber(idle, {});
  await settle();
  quiet.s.abort();
  await quiet.s.done;
  t.same([quiet.ends, idle.state.closed], [['client'], 0], 'an idle stream wakes up to go');
});

t.test('destroy(): the connection is dropped and nothing buffered is kept', async (t) => {
  const conn = connection();
  const { s } = subscriber(conn, { backlog: [event(1, 1000), event(2, 1000)] });
  s.offer(event(3, 500));
  await settle();
  s.destroy();
  t.equal(conn.state.destroyed, 1);
  s.end();
  await conn.take();
  await s.done;
  t.same(conn.ids(), [[1]], 'neither the rest of the backlog nor the pending event is written');
});

t.test('destroy() while a write is pending: once it completes, nothing buffered is written and the stream settles', async (t) => {
  const conn = connection();
  // The gap fills the first chunk alone, so the whole backlog is still waiting.
  const { s } = subscriber(conn, { preamble: 'G'.repeat(998) + '\n\n', backlog: [event(1, 500)], chunk: 1000 });
  s.offer(event(2, 500));
  await settle();
  t.equal(conn.chunks.length, 1, 'the gap in flight');
  s.end();
  s.destroy();
  await conn.take();
  await s.done;
  t.equal(conn.chunks.length, 1, 'neither the backlog nor the live event after the drop');
});

t.test('a stream that has written its backlog holds none of it', async (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const conn = connection(true);
  const refs: Array<WeakRef<StoredEvent>> = [];
  const backlog = () => {
    const list = [event(1, 300), event(2, 300)];
    for (const e of list) refs.push(new WeakRef(e));
    return list;
  };
  const { s } = subscriber(conn, { backlog: backlog() });
  // WeakRefs are cleared only after the current job; two rounds, as the written chunks settle.
  for (let round = 0; round < 2; round++) {
    await settle();
    gc();
  }
  t.same(conn.ids(), [[1, 2]], 'written');
  t.equal(refs.filter((ref) => ref.deref() !== undefined).length, 0, 'its events can be collected while the stream lives on');
  s.end();
  await s.done;
});

t.test('wants(): the kinds filter and the audience, against the caller the stream has now', async (t) => {
  const conn = connection(true);
  const athena: CallerContext = {
    ...god,
    agentId: 'athena',
    role: 'faction_player',
    permissions: ROLE_MASKS.faction_player,
    claimedKingdomId: 1,
    partialIntel: true,
  };
  const { s } = subscriber(conn, { caller: athena, kinds: new Set(['ping']) });
  t.ok(s.wants(event(1, 200, 'ping', [1])));
  t.notOk(s.wants(event(2, 200, 'pong', [1])), 'another kind');
  t.notOk(s.wants(event(3, 200, 'ping', [2])), 'another kingdom');
  s.caller = { ...athena, claimedKingdomId: 2 };
  t.ok(s.wants(event(4, 200, 'ping', [2])), 'after a reload, the new claim');
  const all = subscriber(connection(true), { caller: athena });
  t.ok(all.s.wants(event(5, 200, 'pong', [1])), 'no filter: every kind');
  s.end();
  all.s.end();
});
