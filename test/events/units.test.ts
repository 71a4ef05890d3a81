// The event layer's modules on their own: the audience rule (every role, every kind of audience),
// the collector, the ring, a subscriber's bound, the hub's cursor and gap,
// the objective watch, and the kinds a game may declare.
import pino from 'pino';
import t from 'tap';
import { ALL_PERMISSIONS, ROLE_MASKS } from '../../src/auth/permissions.ts';
import { canSee, READ_ALL_ONLY, type Audienced } from '../../src/events/audience.ts';
import { createCollector } from '../../src/events/collector.ts';
import type { EventBatch } from '../../src/shared/protocol.ts';
import { EventHub } from '../../src/events/hub.ts';
import { allKinds, BRIDGE_KINDS, checkDeclaredKinds, gameEmittableKinds } from '../../src/events/kinds.ts';
import { watchObjectives } from '../../src/events/objectives.ts';
import { EventRing } from '../../src/events/ring.ts';
import { LIMITS } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

const silent = pino({ level: 'silent' });

function caller(agentId: string, role: keyof typeof ROLE_MASKS | 'legacy', claim: number | null, partialIntel: boolean): CallerContext {
  return {
    agentId,
    agentIndex: 0,
    role: role === 'legacy' ? 'god' : role,
    permissions: role === 'legacy' ? ALL_PERMISSIONS : ROLE_MASKS[role],
    claimedKingdomId: claim,
    scenario: 'pvp',
    partialIntel,
    turnBased: false,
    legacyMode: role === 'legacy',
  };
}

t.test('the audience rule: every role against every kind of audience, with and without partial_intel', async (t) => {
  const global: Audienced = { kingdomIds: [], restrict: null };
  const k1: Audienced = { kingdomIds: [1], restrict: null };
  const k2: Audienced = { kingdomIds: [2], restrict: null };
  const k12: Audienced = { kingdomIds: [1, 2], restrict: null };
  const messageAthenaToAres: Audienced = { kingdomIds: [], restrict: { agents: ['athena', 'ares'], readAll: false } };
  const commandOfAthena: Audienced = { kingdomIds: [], restrict: { agents: ['athena'], readAll: true } };
  const reload: Audienced = { kingdomIds: [], restrict: READ_ALL_ONLY };
  const audiences = { global, k1, k2, k12, messageAthenaToAres, commandOfAthena, reload };
  // [caller, partial_intel, expected visibility per audience in the order above]
  const table: Array<[CallerContext, string]> = [];
  for (const fog of [true, false]) {
    table.push([caller('legacy', 'legacy', null, fog), fog ? '1111 011' : '1111 011']);
    table.push([caller('zeus', 'god', null, fog), '1111 011']);
    table.push([caller('owl', 'observer', null, fog), '1111 011']);
    table.push([caller('bard', 'narrator', null, fog), '1111 011']);
    table.push([caller('athena', 'faction_player', 1, fog), fog ? '1101 110' : '1111 110']);
    table.push([caller('ares', 'faction_player', 2, fog), fog ? '1011 100' : '1111 100']);
    table.push([caller('pan', 'faction_player', null, fog), fog ? '1000 000' : '1111 000']);
  }
  for (const [who, expected] of table) {
    const got = Object.values(audiences)
      .map((audience) => (canSee(who, audience) ? '1' : '0'))
      .join('');
    t.equal(got.slice(0, 4) + ' ' + got.slice(4), expected, `${who.agentId} (${who.role}, partial_intel ${who.partialIntel})`);
  }
  t.equal(canSee({ ...caller('athena', 'faction_player', 1, true), claimedKingdomId: 2 }, k2), true, 'the claim as it is now decides');
});

t.test('collector: declared kinds only (one warning each), a per-frame bound, one batch a frame, none when empty', async (t) => {
  const batches: EventBatch[] = [];
  const warnings: string[] = [];
  let tick = 5;
  const collector = createCollector({
    kinds: gameEmittableKinds(['ping']),
    currentTick: () => tick,
    send: (batch) => batches.push(structuredClone(batch)),
    warn: (message) => warnings.push(message),
    maxPerFrame: 3,
  });
  collector.flush();
  t.equal(batches.length, 0, 'nothing for an empty frame');
  collector.emit('ping', { a: 1 }, [2, 2.5 as number, 3]);
  collector.emit('nope');
  collector.emit('nope');
  collector.emit('message', { content: 'forged' });
  tick = 6;
  collector.emit('world_saved');
  collector.emit('ping');
  collector.emit('ping');
  t.equal(batches.length, 0, 'nothing leaves before the end of the frame');
  collector.flush();
  t.equal(batches.length, 1, 'one batch for the frame');
  const [batch] = batches;
  t.same(
    batch!.events.map((e) => [e.kind, e.tick]),
    [
      ['ping', 5],
      ['world_saved', 6],
      ['ping', 6],
    ],
  );
  t.same(batch!.events[0]!.kingdomIds, [2, 3], 'kingdom ids: integers only');
  t.equal(batch!.dropped, 1, 'beyond the bound: counted');
  t.equal(warnings.filter((w) => /'nope'/.test(w)).length, 1, 'one warning per undeclared kind');
  t.ok(
    warnings.some((w) => /'message'/.test(w)),
    'a main-loop kind is not the game’s to emit',
  );
  const sent: EventBatch[] = [];
  const strict = createCollector({
    kinds: new Set(['ping']),
    currentTick: () => 0,
    send: (b) => sent.push(structuredClone(b)),
    warn: (m) => warnings.push(m),
  });
  strict.emit('ping', { fn: () => 1 } as unknown as Record<string, unknown>);
  strict.emit('ping', { ok: true });
  strict.flush();
  t.same(
    sent[0]!.events.map((e) => e.fields),
    [{ ok: true }],
    'an event whose fields cannot cross threads is dropped, the others go',
  );
  t.equal(sent[0]!.dropped, 1);
});

t.test("collector: endTick() starts a tick's bound again and keeps the events, each with its own tick; held counts them", async (t) => {
  const batches: EventBatch[] = [];
  let tick = 1;
  const collector = createCollector({
    kinds: new Set(['ping']),
    currentTick: () => tick,
    send: (batch) => batches.push(structuredClone(batch)),
    warn: () => {},
    maxPerFrame: 2,
  });
  t.equal(collector.held(), 0);
  for (; tick <= 3; tick++) {
    collector.emit('ping', { n: tick });
    collector.emit('ping', { n: tick });
    collector.endTick();
  }
  t.equal(batches.length, 0, 'nothing leaves at the end of a tick');
  t.equal(collector.held(), 6, "two a tick, each tick's bound full, none dropped");
  collector.emit('ping');
  collector.emit('ping');
  collector.emit('ping');
  t.equal(collector.held(), 8, 'past the bound within one tick: not held');
  collector.flush();
  t.equal(collector.held(), 0, 'flushed: none held');
  t.same(
    batches[0]!.events.map((e) => e.tick),
    [1, 1, 2, 2, 3, 3, 4, 4],
    'one batch, each event with its tick, in order',
  );
  t.equal(batches[0]!.dropped, 1);
});

t.test("collector: take() hands the batch to an answer; the bound stays a frame's across takes; send() drops only what cannot be copied", async (t) => {
  const sent: EventBatch[] = [];
  const warnings: string[] = [];
  const collector = createCollector({
    kinds: new Set(['ping']),
    currentTick: () => 1,
    send: (batch) => sent.push(structuredClone(batch)),
    warn: (message) => warnings.push(message),
    maxPerFrame: 3,
  });
  t.equal(collector.take(), null, 'nothing collected: nothing to carry');
  collector.emit('ping', { n: 1 });
  collector.emit('ping', { n: 2 });
  const first = collector.take()!;
  t.same(
    first.events.map((e) => e.fields),
    [{ n: 1 }, { n: 2 }],
  );
  t.equal(first.dropped, 0);
  t.equal(collector.take(), null, 'taken: gone from the collector');
  collector.emit('ping', { n: 3 });
  collector.emit('ping', { n: 4 }); // the fourth of this frame: over the bound of 3
  collector.flush();
  t.same(
    sent.map((b) => [b.events.map((e) => e.fields), b.dropped]),
    [[[{ n: 3 }], 1]],
    "the end of the frame sends the rest; a take did not reset the frame's bound",
  );
  collector.emit('ping', { n: 5 });
  t.equal(collector.take()!.events.length, 1, 'a new frame: a new bound');
  collector.emit('ping', { fn: () => 1 } as unknown as Record<string, unknown>);
  collector.emit('ping', { n: 6 });
  collector.send(collector.take()!);
  t.same(
    sent.at(-1)!.events.map((e) => e.fields),
    [{ n: 6 }],
    'send() is as careful as flush()',
  );
  t.equal(sent.at(-1)!.dropped, 1);
  t.equal(collector.take(), null);
});

t.test('ring: keeps the last N in order; 0 keeps nothing', async (t) => {
  const ring = new EventRing<{ seq: number; bytes: number }>(3);
  for (let seq = 1; seq <= 5; seq++) ring.push({ seq, bytes: 10 });
  t.equal(ring.oldestSeq, 3);
  const after = (since: number) => {
    const out: number[] = [];
    ring.forEachAfter(since, (e) => (out.push(e.seq), true));
    return out;
  };
  t.same(after(0), [3, 4, 5]);
  t.same(after(3), [4, 5]);
  t.same(after(5), []);
  const none = new EventRing<{ seq: number; bytes: number }>(0);
  none.push({ seq: 1, bytes: 10 });
  t.equal(none.oldestSeq, undefined);
});

function hub(history = 100, maxStreams = 4, multiAgent = false): EventHub {
  return new EventHub({ history, maxStreams, multiAgent, tick: () => 7, keepAliveMs: 60_000, log: silent, kinds: allKinds(['ping']) });
}

function fakeSink(mode: 'fast' | 'stalled') {
  const chunks: Buffer[] = [];
  let destroyed = false;
  let closed = false;
  return {
    chunks,
    get destroyed() {
      return destroyed;
    },
    get closed() {
      return closed;
    },
    text: () => Buffer.concat(chunks).toString(),
    sink: {
      write: (chunk: Uint8Array) => {
        chunks.push(Buffer.from(chunk));
        return mode === 'fast' ? Promise.resolve() : new Promise(() => {});
      },
      close: async () => {
        closed = true;
      },
      destroy: () => {
        destroyed = true;
      },
    },
  };
}

t.test('subscriber: a stalled client is closed past its buffer; a reading one gets every event in order', async (t) => {
  const h = hub();
  const god = caller('zeus', 'god', null, false);
  const stalled = fakeSink('stalled');
  const fast = fakeSink('fast');
  const take = () => {
    const lease = h.streamLeases.takeFor(god);
    if ('ok' in lease) throw new Error('no slot');
    return lease;
  };
  h.subscribe({ caller: god, kinds: null, since: undefined, sink: stalled.sink, lease: take() });
  h.subscribe({ caller: god, kinds: null, since: undefined, sink: fast.sink, lease: take() });
  const pad = 'x'.repeat(10_000);
  let n = 0;
  while (h.stats.overflowed === 0 && n < 1000) {
    h.publishBatch({ type: 'events', at: Date.now(), dropped: 0, events: [{ kind: 'ping', tick: 1, fields: { n: n++, pad }, kingdomIds: [] }] });
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(h.stats.overflowed, 1, 'the stalled stream overflowed');
  t.ok(stalled.destroyed, 'its connection is dropped');
  const bytes = stalled.chunks.reduce((sum, c) => sum + c.length, 0);
  t.ok(bytes <= LIMITS.eventStreamChunkBytes + 11_000, `it took at most one chunk into the connection (${bytes} bytes)`);
  const frameBytes = Buffer.byteLength(fast.text()) / n;
  t.ok(n * frameBytes > LIMITS.eventStreamBufferBytes, 'it was closed once its buffer was full, not before');
  t.ok((n - 1) * frameBytes <= LIMITS.eventStreamBufferBytes + LIMITS.eventStreamChunkBytes, 'and at the event that overfilled it');
  t.equal(h.stats.streams, 1);
  t.equal(h.streamLeases.inUse, 1, 'its stream lease is back');
  await new Promise((resolve) => setImmediate(resolve));
  const seqs = [...fast.text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  t.same(
    seqs,
    Array.from({ length: n }, (_, i) => i + 1),
    'the reading client got every event, in order',
  );
  await h.stop();
  t.ok(fast.closed, 'stop() ends a stream cleanly');
});

t.test('hub: recv cursor and gap, read-all-only events, closing a removed agent’s streams', async (t) => {
  const h = hub(3, 4, true);
  const god = caller('zeus', 'god', null, true);
  const athena = caller('athena', 'faction_player', 1, true);
  for (let i = 0; i < 5; i++) h.emit('ping', { i }, i % 2 === 0 ? [1] : [2]);
  const recv = (c: CallerContext, args: Record<string, unknown>) => {
    const out = h.recv(args, c, undefined);
    if (out instanceof Promise) throw new Error('waits');
    if (!out.ok) throw new Error(out.message);
    return out.value;
  };
  const all = recv(god, { since_seq: 0 });
  t.same(all.gap, { from: 1, to: 2 });
  t.equal(all.oldest_seq, 3);
  t.equal(all.count, 3);
  const mine = recv(athena, { since_seq: 2 });
  t.same(
    mine.items.map((json) => JSON.parse(json).i),
    [2, 4],
    'fog: kingdom 1 only',
  );
  t.equal(mine.next_cursor, 5, 'the cursor: the last event the caller may see');
  t.notOk('gap' in mine);
  h.emitReadAllOnly('agents_reloaded', { added: ['x'], removed: [], changed: [] });
  t.equal(recv(athena, { since_seq: 5 }).count, 0, 'agents_reloaded: not for a faction player');
  t.equal(recv(god, { since_seq: 5 }).count, 1, 'agents_reloaded: read_all holders');
  const bad = h.recv({ kinds: ['pnig'] }, god, undefined) as { ok: false; did_you_mean?: string[] };
  t.equal(bad.ok, false);
  t.equal(bad.did_you_mean?.[0], 'ping');

  const sink = fakeSink('fast');
  const lease = h.streamLeases.takeFor(athena);
  if ('ok' in lease) throw new Error('no slot');
  const subscriber = h.subscribe({ caller: athena, kinds: null, since: undefined, sink: sink.sink, lease });
  h.rebindCallers((id) => (id === 'athena' ? { ...athena, claimedKingdomId: 2 } : null));
  t.equal(subscriber.caller.claimedKingdomId, 2, 'a reload rebinds the stream to the agent’s new context');
  h.closeAgent('athena');
  await subscriber.done;
  t.ok(sink.closed, 'a removed agent’s stream is ended');
  t.equal(h.streamLeases.inUse, 0);
  const waiting = h.recv({ since_seq: 100, wait_ms: 10_000 }, athena, { release: () => {} });
  t.type(waiting, Promise, 'nothing yet: it waits');
  h.closeAgent('athena');
  const answered = await waiting;
  t.ok(answered.ok, 'a removed agent’s waiting recv_events answers at once');
  await h.stop();
});

t.test('objective_changed: only when a status changes, about the agent’s claimed kingdom', async (t) => {
  const emitted: Array<[Record<string, unknown>, readonly number[]]> = [];
  let status = 'pending';
  const judged: Array<() => void> = [];
  const watch = watchObjectives({
    intervalMs: 5,
    kingdoms: async () => ({ ok: true, value: [] }),
    judge: async () => {
      for (const done of judged.splice(0)) done();
      return {
        ok: true,
        value: {
          agents: [{ agent_id: 'athena', claimed_kingdom_id: 1, objectives: [{ id: 'win', label: 'Win', kind: 'wipe_kingdom', status, progress: 3 }] }],
        },
      };
    },
    emit: (fields, ids) => emitted.push([fields, ids]),
    log: silent,
  });
  const looked = () => new Promise<void>((resolve) => judged.push(resolve));
  const alive = setInterval(() => {}, 1000); // the watch's timer is unref'd: keep this test's loop alive
  await looked();
  await looked();
  t.equal(emitted.length, 0, 'the first look is the baseline; an unchanged status emits nothing');
  status = 'done';
  await looked();
  await looked();
  watch.stop();
  clearInterval(alive);
  t.equal(emitted.length, 1);
  t.match(emitted[0]![0], { agent_id: 'athena', objective_id: 'win', status: 'done', previous: 'pending', objective_kind: 'wipe_kingdom' });
  t.same(emitted[0]![1], [1]);
});

t.test('declared kinds: names checked, the bridge’s own kinds cannot be taken, /capabilities lists all sorted', async (t) => {
  const { kinds, ignored } = checkDeclaredKinds(['ping', 'Bad Kind', 'command', 'world_saved', 'ping']);
  t.same(kinds, ['ping']);
  t.same(
    ignored.map((i) => i.kind),
    ['Bad Kind', 'command'],
  );
  t.same(checkDeclaredKinds('nope').kinds, []);
  const all = allKinds(['ping']);
  t.same(all, [...all].sort());
  for (const kind of BRIDGE_KINDS) t.ok(all.includes(kind), kind);
});
