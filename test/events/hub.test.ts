// The hub at its edges, without a bridge: recv_events' waits (when it waits, what wakes it, its
// bound, its timer), kinds lists, a stream's gap and backlog, stop() and its grace, the cursors'
// cost and a removed agent's cursor, the counters, progress and its channel. units.test.ts and
// visible-seq.test.ts have the main paths.
import pino from 'pino';
import t from 'tap';
import { EventHub, type RecvResult } from '../../src/events/hub.ts';
import { allKinds } from '../../src/events/kinds.ts';
import { progressChannel } from '../../src/events/progress.ts';
import type { StreamSink } from '../../src/events/subscriber.ts';
import { LIMITS } from '../../src/limits.ts';
import type { Outcome } from '../../src/errors/bridge-error.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { caller } from './callers.ts';

const zeus = caller('zeus', 'god', null);
const athena = caller('athena', 'faction_player', 1);

function hub(options: { history?: number; maxStreams?: number; multiAgent?: boolean; log?: pino.Logger } = {}): EventHub {
  return new EventHub({
    history: options.history ?? 100,
    maxStreams: options.maxStreams ?? 4,
    multiAgent: options.multiAgent ?? true,
    tick: () => 7,
    keepAliveMs: 60_000,
    log: options.log ?? pino({ level: 'silent' }),
    kinds: allKinds(['ping', 'pong']),
  });
}

function now(h: EventHub, who: CallerContext, args: Record<string, unknown> = {}): RecvResult {
  const out = h.recv(args, who, undefined);
  if (out instanceof Promise) throw new Error('recv_events waits');
  if (!out.ok) throw new Error(out.message);
  return out.value;
}

function sink(mode: 'fast' | 'stalled' = 'fast') {
  const state = { text: '', closed: false, destroyed: false };
  const s: StreamSink = {
    write: (chunk) => {
      state.text += Buffer.from(chunk).toString();
      return mode === 'fast' ? Promise.resolve() : new Promise(() => {});
    },
    close: async () => {
      state.closed = true;
    },
    destroy: () => {
      state.destroyed = true;
    },
  };
  return { sink: s, state };
}

function lease(h: EventHub, who: CallerContext) {
  const taken = h.streamLeases.takeFor(who);
  if ('ok' in taken) throw new Error(taken.message);
  return taken;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('recv_events answers at once when it has events, no wait_ms, or the hub is closing', async (t) => {
  const h = hub();
  h.emit('ping');
  t.equal(now(h, zeus, { wait_ms: 10_000 }).count, 1, 'events: at once, whatever wait_ms');
  t.equal(now(h, zeus, { since_seq: 1 }).count, 0, 'no wait_ms: at once');
  t.equal(now(h, zeus, { since_seq: 1, wait_ms: 0 }).count, 0, 'wait_ms 0: at once');
  await h.stop();
  t.equal(now(h, zeus, { since_seq: 1, wait_ms: 10_000 }).count, 0, 'closing: at once');
  t.equal(h.streamLeases.inUse, 0);
});

t.test('recv_events: max, its default, and the cursor of a full answer', async (t) => {
  const h = hub({ history: 1000 });
  for (let i = 0; i < 150; i++) h.emit('ping', { i });
  const first = now(h, zeus);
  t.same([first.count, first.next_cursor, first.oldest_seq], [LIMITS.recvEventsMaxDefault, 100, 1], 'at most 100 by default; the cursor at the last one');
  const two = now(h, zeus, { since_seq: 10, max: 2 });
  t.same(
    two.items.map((json) => JSON.parse(json).seq),
    [11, 12],
  );
  t.equal(two.next_cursor, 12);
  const rest = now(h, zeus, { since_seq: 140, max: 100 });
  t.same([rest.count, rest.next_cursor], [10, 150], 'fewer than max: the cursor at the newest');
  const beyond = now(h, zeus, { since_seq: 1e9 });
  t.same([beyond.count, beyond.next_cursor, 'gap' in beyond], [0, 150, false], 'a since_seq beyond the newest is the newest');
  await h.stop();
});

t.test('recv_events with no history: oldest_seq is the next seq, and every older event is a gap', async (t) => {
  const h = hub({ history: 0 });
  t.same(now(h, zeus), { items: [], count: 0, next_cursor: 0, oldest_seq: 1 }, 'nothing yet: no gap');
  h.emit('ping');
  h.emit('ping');
  t.same(now(h, zeus), { items: [], count: 0, next_cursor: 2, oldest_seq: 3, gap: { from: 1, to: 2 } });
  t.same(now(h, zeus, { since_seq: 2 }), { items: [], count: 0, next_cursor: 2, oldest_seq: 3 });
  await h.stop();
});

t.test('a waiting recv_events: woken by what it may see and asked for, not by anything else', async (t) => {
  const h = hub();
  h.emit('ping');
  let released = 0;
  const waiting = h.recv({ since_seq: 1, kinds: ['pong'], wait_ms: 10_000 }, athena, { release: () => void released++ });
  t.type(waiting, Promise);
  t.equal(released, 1, 'its admission slot is given back');
  t.same([h.stats.waiting, h.streamLeases.inUse], [1, 1], 'it holds a stream lease instead');
  let answered = false;
  void (waiting as Promise<unknown>).then(() => (answered = true));
  h.emit('ping', {}, [1]);
  h.emit('pong', {}, [2]);
  h.publishBatch({ type: 'events', at: Date.now(), dropped: 0, events: [{ kind: 'pong', tick: 1, kingdomIds: [3], fields: undefined }] });
  await tick();
  t.notOk(answered, 'another kind, or an event it may not see: still waiting');
  h.publishBatch({
    type: 'events',
    at: Date.now(),
    dropped: 0,
    events: [
      { kind: 'ping', tick: 1, kingdomIds: [1], fields: undefined },
      { kind: 'pong', tick: 1, kingdomIds: [1], fields: { n: 1 } },
    ],
  });
  const answer = (await waiting) as Outcome<RecvResult>;
  t.ok(answer.ok);
  t.same(answer.ok && answer.value.items.map((json) => JSON.parse(json).seq), [6]);
  t.same([h.stats.waiting, h.streamLeases.inUse], [0, 0]);
  await h.stop();
});

t.test('a waiting recv_events: answered empty when wait_ms is over; its timer goes when it is answered', async (t) => {
  const h = hub();
  const started = Date.now();
  const empty = (await h.recv({ wait_ms: 30 }, zeus, undefined)) as Outcome<RecvResult>;
  t.ok(Date.now() - started >= 25, 'it waited');
  t.same(empty, { ok: true, value: { items: [], count: 0, next_cursor: 0, oldest_seq: 1 } });
  // Its timer, caught as it is set, must be cleared when an event answers first.
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const set: unknown[] = [];
  const cleared: unknown[] = [];
  globalThis.setTimeout = ((fn: () => void, ms: number) => {
    const timer = realSet(fn, ms);
    set.push(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((timer: NodeJS.Timeout) => {
    cleared.push(timer);
    realClear(timer);
  }) as typeof clearTimeout;
  try {
    const waiting = h.recv({ wait_ms: 10_000 }, zeus, undefined);
    t.equal(set.length, 1, 'one timer while it waits');
    h.emit('ping');
    await waiting;
    t.ok(cleared.includes(set[0]), 'cleared once it is answered');
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
  await h.stop();
});

t.test('a waiting recv_events waits at most recvEventsWaitMaxMs', async (t) => {
  const h = hub();
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((fn: () => void, ms: number) => {
    delays.push(ms);
    return real(fn, ms);
  }) as typeof setTimeout;
  let waiting: ReturnType<EventHub['recv']>;
  try {
    waiting = h.recv({ wait_ms: 10 * LIMITS.recvEventsWaitMaxMs }, zeus, undefined);
  } finally {
    globalThis.setTimeout = real;
  }
  t.same(delays, [LIMITS.recvEventsWaitMaxMs]);
  await h.stop();
  t.match(await waiting, { ok: true, value: { count: 0 } }, 'stop() answers it');
});

t.test('a waiting recv_events refused a stream lease is BUSY and keeps its admission slot', async (t) => {
  const h = hub({ maxStreams: 2 });
  lease(h, athena);
  let released = 0;
  const refused = h.recv({ wait_ms: 10_000 }, athena, { release: () => void released++ });
  t.match(refused, { ok: false, code: 'BUSY', message: /agent 'athena' already holds 1 event streams/ });
  t.equal(released, 0);
  await h.stop();
});

t.test('a reload follows waiting recv_events: a new claim decides what wakes it; a removed agent is answered', async (t) => {
  const h = hub();
  const waiting = h.recv({ wait_ms: 10_000 }, athena, undefined) as Promise<Outcome<RecvResult>>;
  const ares = caller('ares', 'faction_player', 2);
  const other = h.recv({ wait_ms: 10_000 }, ares, undefined) as Promise<Outcome<RecvResult>>;
  h.rebindCallers((id) => (id === 'athena' ? { ...athena, claimedKingdomId: 3 } : id === 'ares' ? null : null));
  const gone = await other;
  t.match(gone, { ok: true, value: { count: 0 } }, 'ares is gone: answered');
  h.emit('ping', {}, [3]);
  const woken = await waiting;
  t.match(woken, { ok: true, value: { count: 1 } }, 'athena now claims 3: that event wakes it');
  await h.stop();
});

t.test('an agent removed and added again starts its cursor afresh', async (t) => {
  for (const remove of [(h: EventHub) => h.closeAgent('athena'), (h: EventHub) => h.rebindCallers(() => null)]) {
    const h = hub({ history: 4 });
    h.emit('ping', {}, [1]);
    t.equal(h.visibleSeq(athena), 1);
    remove(h);
    for (let i = 0; i < 6; i++) h.emit('ping', {}, [2]);
    t.equal(h.visibleSeq(athena), 0, 'what it saw is no longer kept: nothing');
    await h.stop();
  }
  const h = hub({ history: 4 });
  h.emit('ping', {}, [1]);
  h.visibleSeq(athena);
  h.rebindCallers((id) => (id === 'athena' ? athena : null));
  for (let i = 0; i < 6; i++) h.emit('ping', {}, [2]);
  t.equal(h.visibleSeq(athena), 1, 'an agent that stays keeps its cursor');
  await h.stop();
});

t.test('the cursor looks back in growing windows: its cost follows how far back the last visible event is', async (t) => {
  // canSee reads `permissions` once an event, visibleSeq once a call: the reads count the events looked at.
  let reads = 0;
  const counted = (claim: number): CallerContext => {
    const base = { ...athena, claimedKingdomId: claim };
    return Object.defineProperty(base, 'permissions', {
      get: () => (reads++, athena.permissions),
      enumerable: true,
    });
  };
  const looked = (h: EventHub, who: CallerContext) => {
    reads = 0;
    const seq = h.visibleSeq(who);
    return [seq, reads - 1];
  };
  const h = hub({ history: 10_000 });
  h.emit('ping', {}, [1]);
  for (let i = 0; i < 64; i++) h.emit('ping', {}, [2]);
  t.same(looked(h, counted(1)), [1, 65], 'the oldest kept, just past the first window of 64: found');
  t.same(looked(h, counted(1)), [1, 0], 'nothing new: nothing looked at');
  h.emit('ping', {}, [2]);
  h.emit('ping', {}, [2]);
  t.same(looked(h, counted(1)), [1, 2], 'two new events: two looked at');
  for (let i = 0; i < 5000; i++) h.emit('ping', {}, [2]);
  h.emit('ping', {}, [7]);
  for (let i = 0; i < 10; i++) h.emit('ping', {}, [2]);
  t.same(looked(h, counted(7)), [5068, 64], 'a new claim: its event is in the first window of 64; nothing older is looked at');
  t.same(looked(h, counted(9)), [0, 5078], 'none at all: every kept event, once');
  await h.stop();
});

t.test('kinds lists: empty names are skipped, an empty list filters nothing, an unknown name is BAD_ARGS', async (t) => {
  const h = hub();
  t.equal(h.parseKinds(undefined, 'k'), null);
  t.equal(h.parseKinds([], 'k'), null);
  t.equal(h.parseKinds(['', ''], 'k'), null);
  t.same(h.parseKinds(['', 'ping', 'ping'], 'k'), new Set(['ping']));
  const name64 = 'p'.repeat(64);
  const long = h.parseKinds([name64], 'args.kinds') as { message: string; did_you_mean?: string[] };
  t.equal(long.message, `args.kinds: unknown event kind '${name64}' (GET /capabilities lists event_kinds)`);
  t.equal(long.did_you_mean?.length, 5, 'up to 64 characters: suggestions');
  t.same(h.parseKinds(['ping', 'p'.repeat(65)], 'kinds'), {
    ok: false,
    code: 'BAD_ARGS',
    message: `kinds: unknown event kind '${name64}…' (GET /capabilities lists event_kinds)`,
  });
  t.same((h.parseKinds(['pnog'], 'kinds') as { did_you_mean: string[] }).did_you_mean.slice(0, 2).sort(), ['ping', 'pong']);
  h.setKinds(['alpha']);
  t.same(h.parseKinds(['alpha'], 'k'), new Set(['alpha']));
  t.same((h.parseKinds(['ping'], 'k') as { did_you_mean: string[] }).did_you_mean, ['alpha'], 'setKinds replaces the list and its suggestions');
  await h.stop();
});

t.test('a stream resumed from before the history gets the gap first, then what it may see of the rest', async (t) => {
  const h = hub({ history: 3 });
  for (let i = 1; i <= 6; i++) h.emit(i % 2 ? 'ping' : 'pong', {}, [i === 5 ? 2 : 1]);
  const { sink: s, state } = sink();
  h.subscribe({ caller: athena, kinds: new Set(['ping']), since: 0, sink: s, lease: lease(h, athena) });
  await tick();
  t.equal(state.text.split('\n\n')[0], 'event: gap\ndata: {"from":1,"to":3}', 'the gap: the events no longer kept');
  t.same(
    [...state.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
    [],
    'ping of kingdom 2 only after 3: hidden',
  );
  h.emit('ping', {}, [1]);
  await tick();
  t.same(
    [...state.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
    [7],
    'then live',
  );
  const far = sink();
  h.subscribe({ caller: zeus, kinds: null, since: 1000, sink: far.sink, lease: lease(h, zeus) });
  const near = sink();
  h.subscribe({ caller: zeus, kinds: null, since: 4, sink: near.sink, lease: lease(h, zeus) });
  await tick();
  t.equal(far.state.text, '', 'since beyond the newest: no gap, no backlog');
  t.same(
    [...near.state.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
    [5, 6, 7],
    'from inside the history: no gap',
  );
  t.notMatch(near.state.text, /gap/);
  await h.stop();
});

t.test('stop(): streams end cleanly, one that does not read is dropped after the grace; a stream opened after is ended at once', async (t) => {
  const h = hub({ multiAgent: false });
  const reading = sink();
  const stalled = sink('stalled');
  h.subscribe({ caller: zeus, kinds: null, since: undefined, sink: reading.sink, lease: lease(h, zeus) });
  h.subscribe({ caller: zeus, kinds: null, since: undefined, sink: stalled.sink, lease: lease(h, zeus) });
  h.emit('ping');
  h.emit('ping');
  await tick();
  const started = Date.now();
  await h.stop(30);
  t.ok(Date.now() - started >= 25, 'it waited for the grace');
  t.ok(reading.state.closed, 'the reader: ended cleanly');
  t.same([stalled.state.closed, stalled.state.destroyed], [false, true], 'the stalled one: dropped after the grace');
  t.same([h.streamLeases.inUse, h.stats.streams], [0, 0], 'every lease back');

  const quick = hub();
  const one = sink();
  quick.subscribe({ caller: zeus, kinds: null, since: undefined, sink: one.sink, lease: lease(quick, zeus) });
  const begun = Date.now();
  await quick.stop(5000);
  t.ok(Date.now() - begun < 4000, 'every stream ended: no wait for the grace');
  t.notOk(one.state.destroyed);
  const late = sink();
  const subscriber = quick.subscribe({ caller: zeus, kinds: null, since: 0, sink: late.sink, lease: lease(quick, zeus) });
  await subscriber.done;
  t.ok(late.state.closed, 'opened after stop(): ended');
  t.same([quick.streamLeases.inUse, quick.stats.streams], [0, 0], 'and its lease given back');
});

t.test('counters: published, dropped, by kind; an overflowing stream is counted and logged', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const h = hub({ log: pino({ level: 'warn' }, { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) }) });
  h.publishBatch({ type: 'events', at: 0, dropped: 3, events: [] });
  h.publishBatch({
    type: 'events',
    at: 0,
    dropped: 2,
    events: [
      { kind: 'ping', tick: 1, kingdomIds: [], fields: undefined },
      { kind: 'ping', tick: 1, kingdomIds: [], fields: undefined },
    ],
  });
  h.emit('pong');
  t.same(h.stats, { seq: 3, streams: 0, waiting: 0, published: 3, dropped: 5, overflowed: 0 });
  t.same(
    [...h.kindCounts],
    [
      ['ping', 2],
      ['pong', 1],
    ],
  );
  t.equal(now(h, zeus).items[0], '{"seq":1,"kind":"ping","tick":1,"at_utc":"1970-01-01T00:00:00.000Z","kingdom_ids":[]}');
  const stalled = sink('stalled');
  h.subscribe({ caller: athena, kinds: null, since: undefined, sink: stalled.sink, lease: lease(h, athena) });
  const pad = 'x'.repeat(64 * 1024);
  while (h.stats.overflowed === 0) h.emit('ping', { pad });
  t.same(
    lines.map((line) => [line.agent, line.buffer_bytes, line.msg]),
    [
      [
        'athena',
        LIMITS.eventStreamBufferBytes,
        'an event stream fell a whole buffer behind its client and was closed; the client can resume with Last-Event-ID',
      ],
    ],
  );
  t.same([h.stats.streams, h.streamLeases.inUse], [0, 0]);
  await h.stop();
});

t.test('a hub given no kinds knows none, and has none to suggest', async (t) => {
  const bare = new EventHub({ history: 10, maxStreams: 1, multiAgent: false, tick: () => 0, keepAliveMs: 60_000, log: pino({ level: 'silent' }) });
  t.strictSame(bare.parseKinds(['ping'], 'kinds'), {
    ok: false,
    code: 'BAD_ARGS',
    message: "kinds: unknown event kind 'ping' (GET /capabilities lists event_kinds)",
    did_you_mean: [],
  });
  await bare.stop();
});

t.test('recv_events names its own argument in a kinds refusal', async (t) => {
  const h = hub();
  t.match(h.recv({ kinds: ['nope'] }, zeus, undefined), {
    ok: false,
    code: 'BAD_ARGS',
    message: "args.kinds: unknown event kind 'nope' (GET /capabilities lists event_kinds)",
  });
  await h.stop();
});

t.test('agents.json reload events: read_all holders only, about no kingdom', async (t) => {
  const h = hub();
  h.emitReadAllOnly('agents_reloaded', { agents: 2 });
  const [event] = now(h, zeus).items.map((json) => JSON.parse(json) as Record<string, unknown>);
  t.match(event, { seq: 1, kind: 'agents_reloaded', tick: 7, agents: 2 });
  t.same(event!.kingdom_ids, []);
  t.equal(now(h, athena).count, 0, 'a player does not see it');
  await h.stop();
});

t.test('stop() ends the keep-alive timer start() set', async (t) => {
  const realSet = globalThis.setInterval;
  const realClear = globalThis.clearInterval;
  const set: unknown[] = [];
  const cleared: unknown[] = [];
  globalThis.setInterval = ((fn: () => void, ms: number) => {
    const timer = realSet(fn, ms);
    set.push(timer);
    return timer;
  }) as typeof setInterval;
  globalThis.clearInterval = ((timer: NodeJS.Timeout) => {
    cleared.push(timer);
    realClear(timer);
  }) as typeof clearInterval;
  try {
    const h = hub();
    h.start();
    t.equal(set.length, 1, 'one timer for every stream');
    await h.stop();
    t.ok(cleared.includes(set[0]), 'cleared at stop()');
  } finally {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  }
});

t.test("closeAgent(): that agent's streams close and its waiting recv_events answer; no one else's", async (t) => {
  const h = hub({ maxStreams: 8 });
  const ares = caller('ares', 'faction_player', 2);
  const hers = sink();
  const gods = sink();
  h.subscribe({ caller: athena, kinds: null, since: undefined, sink: hers.sink, lease: lease(h, athena) });
  h.subscribe({ caller: zeus, kinds: null, since: undefined, sink: gods.sink, lease: lease(h, zeus) });
  let answered = '';
  const herWait = h.recv({ wait_ms: 10_000 }, athena, undefined) as Promise<Outcome<RecvResult>>;
  const hisWait = h.recv({ wait_ms: 10_000 }, ares, undefined) as Promise<Outcome<RecvResult>>;
  void herWait.then(() => (answered += 'athena'));
  void hisWait.then(() => (answered += 'ares'));
  h.closeAgent('athena');
  await tick();
  t.equal(answered, 'athena', "her waiting recv_events answered, ares's still waiting");
  t.same([hers.state.closed, gods.state.closed], [true, false], 'her stream closed, the god’s open');
  t.same([h.stats.streams, h.stats.waiting, h.streamLeases.inUse], [1, 1, 2], 'her leases given back');
  await h.stop();
  await hisWait;
});

t.test("a reload that removes an agent closes its streams; the others' follow their new context", async (t) => {
  const h = hub();
  const hers = sink();
  const gods = sink();
  h.subscribe({ caller: athena, kinds: null, since: undefined, sink: hers.sink, lease: lease(h, athena) });
  const god = h.subscribe({ caller: zeus, kinds: null, since: undefined, sink: gods.sink, lease: lease(h, zeus) });
  const observer = { ...zeus, role: 'observer' as const };
  h.rebindCallers((id) => (id === 'zeus' ? observer : null));
  await tick();
  t.same([hers.state.closed, gods.state.closed], [true, false]);
  t.equal(god.caller, observer);
  t.same([h.stats.streams, h.streamLeases.inUse], [1, 1]);
  await h.stop();
});

t.test('stream leases: a quarter is kept for read_all holders; a player cannot take it', async (t) => {
  const h = hub({ maxStreams: 4 });
  const ares = caller('ares', 'faction_player', 2);
  lease(h, athena);
  lease(h, athena);
  lease(h, ares);
  t.match(h.streamLeases.takeFor(ares), {
    ok: false,
    code: 'BUSY',
    message: /^the 3 event streams open to agents without read_all are all taken; the other 1 \(a quarter of the 4/,
  });
  t.notOk('ok' in h.streamLeases.takeFor(zeus), 'the god takes the kept one');
  t.equal(h.streamLeases.inUse, 4);
  await h.stop();
});

t.test("progress (decisions §14): live to the caller's own streams that name the kind; no seq, never kept, never in recv_events", async (t) => {
  const h = hub({ maxStreams: 16 });
  const hermes = caller('hermes', 'faction_player', 1);
  const own = sink();
  const ownAll = sink();
  const ownOther = sink();
  const godProgress = sink();
  const rival = sink();
  h.subscribe({ caller: athena, kinds: new Set(['progress']), since: undefined, sink: own.sink, lease: lease(h, athena) });
  h.subscribe({ caller: athena, kinds: null, since: undefined, sink: ownAll.sink, lease: lease(h, athena) });
  h.subscribe({ caller: athena, kinds: new Set(['ping']), since: undefined, sink: ownOther.sink, lease: lease(h, athena) });
  h.subscribe({ caller: zeus, kinds: new Set(['progress', 'ping']), since: undefined, sink: godProgress.sink, lease: lease(h, zeus) });
  h.subscribe({ caller: hermes, kinds: new Set(['progress']), since: undefined, sink: rival.sink, lease: lease(h, hermes) });
  h.progress(athena, 'tok-1', 'step', { done: 3, total: 10, tick: 42, at: Date.parse('2026-11-28T10:00:00.123Z') + 0.7 });
  h.progress(athena, 'tok-2', 'save_world', { done: 1, total: 3, phase: 'copy', tick: 43, at: Date.parse('2026-11-28T10:00:01Z') });
  h.emit('ping');
  await tick();
  t.equal(
    own.state.text,
    'event: progress\ndata: {"kind":"progress","tick":42,"at_utc":"2026-11-28T10:00:00.124Z","kingdom_ids":[],"progress_token":"tok-1","name":"step","done":3,"total":10}\n\n' +
      'event: progress\ndata: {"kind":"progress","tick":43,"at_utc":"2026-11-28T10:00:01.000Z","kingdom_ids":[],"progress_token":"tok-2","name":"save_world","done":1,"total":3,"phase":"copy"}\n\n',
    'one frame each, no id: line; a phase only when named',
  );
  t.notMatch(ownAll.state.text, /progress/, 'a stream without kinds= never gets it');
  t.notMatch(ownOther.state.text, /progress/, 'nor one whose kinds= does not name it');
  t.notMatch(godProgress.state.text, /progress/, "nor another agent's: a read_all holder's");
  t.equal(rival.state.text, '', "or another player's");
  t.match(godProgress.state.text, /event: ping/, 'the god stream is live');
  t.equal(h.seq, 1, 'no seq taken: only the ping has one');
  t.equal(now(h, athena, { kinds: ['progress'] }).count, 0, 'never in recv_events');
  t.equal(h.stats.published, 1, 'never kept or counted as published');
  h.progress(zeus, 'gods-own', 'step', { done: 1, total: 1, tick: 1, at: 0 });
  await tick();
  t.match(godProgress.state.text, /"progress_token":"gods-own"/, "the god's own progress reaches the god's stream");
  t.notMatch(own.state.text, /gods-own/, "and no stream of athena's");
});

t.test('the progress channel (decisions §14): reports at least 100 ms apart by when they were made, none once closed', async (t) => {
  const delivered: Array<[string, string, string, number]> = [];
  const channel = progressChannel((who, token, command, report) => delivered.push([who.agentId, token, command, report.done]));
  const one = channel.open(athena, 'a', 'step');
  const two = channel.open(athena, 'b', 'batch');
  const report = (done: number, at: number) => ({ done, total: 10, tick: 0, at });
  one.report(report(1, 1000));
  one.report(report(2, 1099.9));
  one.report(report(3, 1100));
  two.report(report(1, 1050));
  one.report(report(4, 1150));
  one.close();
  one.report(report(5, 5000));
  two.report(report(2, 1150));
  two.close();
  two.close();
  t.same(delivered, [
    ['athena', 'a', 'step', 1],
    ['athena', 'a', 'step', 3],
    ['athena', 'b', 'batch', 1],
    ['athena', 'b', 'batch', 2],
  ]);
});
