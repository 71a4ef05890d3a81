// The event layer's small parts at their edges: the collector's bounds and warnings, the ring
// around its bounds, the kinds and fog a game may declare, the objective watch's looks, the audience
// of restricted events, and a stored event's envelope. units.test.ts has their main paths.
import pino from 'pino';
import t from 'tap';
import { fogClaim, READ_ALL_ONLY } from '../../src/events/audience.ts';
import { createCollector } from '../../src/events/collector.ts';
import { StoredEvent } from '../../src/events/event.ts';
import { allKinds, BRIDGE_KINDS, checkDeclaredKinds, checkEventFog, gameEmittableKinds, KIND_PATTERN } from '../../src/events/kinds.ts';
import { watchObjectives } from '../../src/events/objectives.ts';
import { EventRing } from '../../src/events/ring.ts';
import type { Outcome } from '../../src/errors/bridge-error.ts';
import { caller } from './callers.ts';
import type { EventBatch } from '../../src/shared/protocol.ts';

function collecting(options: { maxPerFrame?: number; tick?: () => number; send?: (batch: EventBatch) => void } = {}) {
  const batches: EventBatch[] = [];
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  const collector = createCollector({
    kinds: gameEmittableKinds(['ping']),
    currentTick: options.tick ?? (() => 1),
    send: options.send ?? ((batch) => void batches.push(structuredClone(batch))),
    warn: (message, detail) => void warnings.push([message, detail]),
    maxPerFrame: options.maxPerFrame,
  });
  return { collector, batches, warnings };
}

t.test('collector: an undeclared kind is warned about once, named in at most 64 characters, for at most 1000 kinds', async (t) => {
  const { collector, warnings, batches } = collecting();
  const long = 'k'.repeat(100);
  collector.emit(long);
  collector.emit(long);
  collector.emit(42 as unknown as string);
  t.same(warnings, [
    [`event kind '${'k'.repeat(64)}' is not declared in the game's eventKinds; its events are dropped`, { kind: 'k'.repeat(64) }],
    ["event kind '42' is not declared in the game's eventKinds; its events are dropped", { kind: '42' }],
  ]);
  for (let i = 0; i < 1100; i++) collector.emit(`undeclared_${i}`);
  t.equal(warnings.length, 1000, 'the set of warned kinds is bounded: 1000 warnings in all');
  collector.flush();
  t.same(batches, [], 'nothing undeclared is sent');
});

t.test('collector: ticks are whole, fields are objects, kingdom ids integers', async (t) => {
  let tick = 5.7;
  const { collector, batches } = collecting({ tick: () => tick });
  collector.emit('ping', 'text' as unknown as Record<string, unknown>);
  collector.emit('ping', null as unknown as Record<string, unknown>);
  tick = -1.5;
  collector.emit('ping', { a: 1 }, [1.5, 2, Number.NaN, 3]);
  collector.emit('ping', [1, 2] as unknown as Record<string, unknown>, []);
  collector.flush();
  t.equal(batches[0]!.type, 'events', 'the message type the main loop routes batches by');
  // strictSame: a null must not pass for undefined (the fields of an event without any).
  t.strictSame(batches[0]!.events, [
    { kind: 'ping', tick: 5, fields: undefined, kingdomIds: [] },
    { kind: 'ping', tick: 5, fields: undefined, kingdomIds: [] },
    { kind: 'ping', tick: -1, fields: { a: 1 }, kingdomIds: [2, 3] },
    { kind: 'ping', tick: -1, fields: [1, 2], kingdomIds: [] },
  ]);
});

t.test('collector: a frame whose events were all dropped still reports the count; the overflow is warned about once', async (t) => {
  const { collector, batches, warnings } = collecting({ maxPerFrame: 1 });
  collector.emit('ping', { n: 1 });
  t.equal(collector.take()!.events.length, 1);
  collector.emit('ping', { n: 2 });
  collector.emit('ping', { n: 3 });
  collector.flush();
  t.same(
    batches.map((b) => [b.events.length, b.dropped]),
    [[0, 2]],
    'no event, two dropped: the batch still leaves',
  );
  t.same(warnings, [['a frame emitted more than 1 events; the rest were dropped (counted, not reported again)', { dropped: 2 }]]);
  collector.emit('ping', { n: 4 });
  collector.emit('ping', { n: 5 });
  collector.flush();
  t.same(
    batches.map((b) => [b.events.length, b.dropped]),
    [
      [0, 2],
      [1, 1],
    ],
  );
  t.equal(warnings.length, 1, 'said once');
});

t.test('collector: fields that cannot be copied are dropped with one warning per kind; a batch that cannot be sent at all is warned about', async (t) => {
  const sent: EventBatch[] = [];
  const kinds = new Set(['ping', 'pong']);
  const warnings: string[] = [];
  const details: unknown[] = [];
  const collector = createCollector({
    kinds,
    currentTick: () => 0,
    send: (batch) => void sent.push(structuredClone(batch)),
    warn: (message, detail) => {
      warnings.push(message);
      details.push(detail);
    },
  });
  const fn = { f: () => 1 } as unknown as Record<string, unknown>;
  collector.emit('ping', fn);
  collector.emit('ping', fn);
  collector.emit('pong', fn);
  collector.emit('pong', { ok: 1 });
  collector.flush();
  t.same(
    sent.map((b) => [b.events.map((e) => e.fields), b.dropped]),
    [[[{ ok: 1 }], 3]],
  );
  t.same(warnings, [
    "an event of kind 'ping' carried fields that cannot be copied to the main loop (plain JSON data only); dropped",
    "an event of kind 'pong' carried fields that cannot be copied to the main loop (plain JSON data only); dropped",
  ]);
  t.same(details, [{ kind: 'ping' }, { kind: 'pong' }], 'the log line names the kind as a field too');

  const broken: string[] = [];
  const dead = createCollector({
    kinds,
    currentTick: () => 0,
    send: () => {
      throw new Error('port closed');
    },
    warn: (message) => void broken.push(message),
  });
  dead.emit('ping', { ok: 1 });
  dead.flush();
  t.same(broken, ['an event batch could not be sent: port closed'], 'never thrown into the game');
});

interface Item {
  seq: number;
  bytes: number;
}

function seqsOf(ring: EventRing<Item>, since = 0): number[] {
  const out: number[] = [];
  ring.forEachAfter(since, (item) => (out.push(item.seq), true));
  return out;
}

t.test('ring: an event of exactly maxBytes is kept alone; after a clear it wraps around in order', async (t) => {
  const ring = new EventRing<Item>(3, 100);
  ring.push({ seq: 1, bytes: 40 });
  ring.push({ seq: 2, bytes: 100 });
  t.same(seqsOf(ring), [2], 'exactly the bound: kept, alone');
  t.equal(ring.bytes, 100);
  ring.push({ seq: 3, bytes: 101 });
  t.same([ring.size, ring.bytes, ring.oldestSeq], [0, 0, undefined], 'one byte over: cleared');
  for (let seq = 4; seq <= 8; seq++) ring.push({ seq, bytes: 10 });
  t.same(seqsOf(ring), [6, 7, 8]);
  t.same(seqsOf(ring, 6), [7, 8]);
  t.same(seqsOf(ring, 100), []);
  t.same([ring.size, ring.bytes, ring.oldestSeq], [3, 30, 6]);
  const visited: number[] = [];
  ring.forEachAfter(0, (item) => (visited.push(item.seq), item.seq < 7));
  t.same(visited, [6, 7], 'the walk stops when the visitor says so');
  ring.push({ seq: 9, bytes: 81 });
  t.same(seqsOf(ring), [8, 9], 'bytes: the oldest go until it fits');
  t.equal(ring.bytes, 91);
});

t.test('declared kinds: every reason, every bound of a name', async (t) => {
  t.same(checkDeclaredKinds(undefined), { kinds: [], ignored: [] });
  t.same(checkDeclaredKinds('ping'), { kinds: [], ignored: [{ kind: 'ping', reason: 'eventKinds must be an array of strings' }] });
  const pattern = 'an event kind must match ^[a-z][a-z0-9_]{0,63}$';
  const max = 'a' + 'b'.repeat(63);
  const { kinds, ignored } = checkDeclaredKinds([
    'ping',
    42,
    'Ping',
    '1ping',
    'ping!',
    'x ping',
    max,
    max + 'c',
    'a',
    'a_1',
    'command',
    'world_loaded',
    'ping',
  ]);
  t.same(kinds, ['ping', max, 'a', 'a_1'], 'each accepted kind once; the frame kinds are the bridge’s already');
  t.same(ignored, [
    { kind: '42', reason: pattern },
    { kind: 'Ping', reason: pattern },
    { kind: '1ping', reason: pattern },
    { kind: 'ping!', reason: pattern },
    { kind: 'x ping', reason: pattern },
    { kind: max + 'c', reason: pattern },
    { kind: 'command', reason: 'only the bridge emits this kind' },
  ]);
  // What is not a string is refused even when its text would pass: the kind would not be a string.
  t.same(checkDeclaredKinds([['ping'], { toString: () => 'pong' }]), {
    kinds: [],
    ignored: [
      { kind: 'ping', reason: pattern },
      { kind: 'pong', reason: pattern },
    ],
  });
  t.equal(KIND_PATTERN.source, '^[a-z][a-z0-9_]{0,63}$');
  t.same([...gameEmittableKinds(['ping', 'Bad', 'command', 'message', 'world_saved'])].sort(), [
    'ping',
    'record_stopped',
    'rewound',
    'world_generated',
    'world_loaded',
    'world_saved',
  ]);
  t.same(allKinds(['ping', 'ping', 'command']), [...BRIDGE_KINDS, 'ping'].sort(), 'sorted, each once');
});

t.test('eventFog: every reason; a kind may declare no field', async (t) => {
  const notObject = 'eventFog must be an object: { kind: [field, ...] }';
  t.same(checkEventFog(null, []).ignored, [{ kind: 'null', reason: notObject }]);
  t.same(checkEventFog(['a'], []).ignored, [{ kind: 'a', reason: notObject }]);
  t.same(checkEventFog('x', []).ignored, [{ kind: 'x', reason: notObject }]);
  const { fog, ignored } = checkEventFog({ a: ['x', 1], b: 'x', c: [], d: ['y', 'z'], e: ['w'] }, ['a', 'b', 'c', 'd']);
  t.same(ignored, [
    { kind: 'a', reason: 'an eventFog entry must be a list of field names' },
    { kind: 'b', reason: 'an eventFog entry must be a list of field names' },
    { kind: 'e', reason: 'eventFog names a kind the game does not declare in eventKinds' },
  ]);
  t.same(
    [...fog].map(([kind, fields]) => [kind, [...fields]]),
    [
      ['c', []],
      ['d', ['y', 'z']],
    ],
  );
});

interface Judged {
  agent_id: string;
  claimed_kingdom_id: number | null;
  objectives: Array<{ id: string; label: string; kind: string; status: string; progress: number | null }>;
}

/** A watch whose looks are run by hand: each look() resolves when the watch has judged once more. */
function watching(answers: Array<Outcome<unknown> | (() => never)>, kingdoms: Array<Outcome<unknown>> = []) {
  const emitted: Array<[Record<string, unknown>, readonly number[]]> = [];
  const lines: Array<Record<string, unknown>> = [];
  let judged = 0;
  let asked = 0;
  const waiting: Array<() => void> = [];
  const settle = () => {
    for (const done of waiting.splice(0)) done();
  };
  const watch = watchObjectives({
    intervalMs: 1,
    kingdoms: async () => {
      const answer = kingdoms[Math.min(asked++, kingdoms.length - 1)] ?? { ok: true, value: [] };
      if (!answer.ok) setImmediate(settle);
      return answer;
    },
    judge: async () => {
      const answer = answers[Math.min(judged++, answers.length - 1)]!;
      setImmediate(settle);
      if (typeof answer === 'function') answer();
      return answer as Outcome<unknown>;
    },
    emit: (fields, ids) => void emitted.push([fields, ids]),
    log: pino({ level: 'warn' }, { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) }),
  });
  return {
    watch,
    emitted,
    lines,
    get judged() {
      return judged;
    },
    get asked() {
      return asked;
    },
    look: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

const agents = (...list: Judged[]): Outcome<unknown> => ({ ok: true, value: { agents: list } });
const objective = (id: string, status: string, progress: number | null = null) => ({ id, label: `L-${id}`, kind: 'k', status, progress });

t.test('objective watch: a vanished objective is forgotten; what comes back is a new baseline; every field of the event', async (t) => {
  const alive = setInterval(() => {}, 1000);
  const w = watching([
    agents(
      { agent_id: 'athena', claimed_kingdom_id: null, objectives: [objective('a', 'pending'), objective('b', 'pending')] },
      { agent_id: 'ares', claimed_kingdom_id: 2, objectives: [objective('a', 'pending')] },
    ),
    agents(
      { agent_id: 'athena', claimed_kingdom_id: null, objectives: [objective('a', 'failed', 0.5)] },
      { agent_id: 'ares', claimed_kingdom_id: 2, objectives: [objective('a', 'pending')] },
    ),
    agents(
      { agent_id: 'athena', claimed_kingdom_id: null, objectives: [objective('a', 'failed'), objective('b', 'done')] },
      { agent_id: 'ares', claimed_kingdom_id: 2, objectives: [objective('a', 'done', 1)] },
    ),
  ]);
  await w.look();
  await w.look();
  await w.look();
  w.watch.stop();
  clearInterval(alive);
  t.same(w.emitted, [
    [{ agent_id: 'athena', objective_id: 'a', label: 'L-a', objective_kind: 'k', status: 'failed', previous: 'pending', progress: 0.5 }, []],
    [{ agent_id: 'ares', objective_id: 'a', label: 'L-a', objective_kind: 'k', status: 'done', previous: 'pending', progress: 1 }, [2]],
  ]);
});

t.test('objective watch: no kingdoms or no judgement is no event; a failed look is logged and the watch goes on; stop() ends it', async (t) => {
  const alive = setInterval(() => {}, 1000);
  const w = watching(
    [
      agents({ agent_id: 'athena', claimed_kingdom_id: 1, objectives: [objective('a', 'pending')] }),
      { ok: false, code: 'GAME_CRASH', message: 'x' },
      () => {
        throw new Error('judge broke');
      },
      agents({ agent_id: 'athena', claimed_kingdom_id: 1, objectives: [objective('a', 'done')] }),
    ],
    [
      { ok: true, value: [] },
      { ok: false, code: 'GAME_CRASH', message: 'no world' },
      { ok: true, value: [] },
    ],
  );
  await w.look(); // baseline
  await w.look(); // kingdoms failed
  t.equal(w.judged, 1, 'no kingdoms: nothing judged');
  await w.look(); // judge failed
  await w.look(); // judge threw
  await w.look(); // done
  t.same(
    w.lines.map((line) => [line.msg, line.err]),
    [['objective_changed: objectives could not be judged', 'judge broke']],
  );
  t.same(
    w.emitted.map(([fields]) => [fields.status, fields.previous]),
    [['done', 'pending']],
    'the baseline outlived the failed looks',
  );
  w.watch.stop();
  const asked = w.asked;
  await new Promise((resolve) => setTimeout(resolve, 30));
  clearInterval(alive);
  t.equal(w.asked, asked, 'stopped: no more looks');
});

t.test('objective watch: stopped during a look, it judges and emits nothing more', async (t) => {
  const emitted: unknown[] = [];
  let judged = 0;
  let release!: () => void;
  let asked!: () => void;
  let looks = 0;
  const askedOnce = new Promise<void>((resolve) => (asked = resolve));
  const watch = watchObjectives({
    intervalMs: 1,
    kingdoms: () => {
      looks++;
      asked();
      return new Promise((resolve) => (release = () => resolve({ ok: true, value: [] })));
    },
    judge: async () => {
      judged++;
      return agents({ agent_id: 'a', claimed_kingdom_id: null, objectives: [objective('a', String(judged))] });
    },
    emit: (fields) => void emitted.push(fields),
    log: pino({ level: 'silent' }),
  });
  const alive = setInterval(() => {}, 1000);
  await askedOnce;
  watch.stop();
  release();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(alive);
  t.equal(judged, 0, 'the kingdoms came back after stop(): nothing judged');
  t.equal(looks, 1, 'and no look is scheduled after it');

  let second!: () => void;
  const judging = new Promise<void>((resolve) => (second = resolve));
  let judgedLate = 0;
  const late = watchObjectives({
    intervalMs: 1,
    kingdoms: async () => ({ ok: true, value: [] }),
    judge: async () => {
      judgedLate++;
      if (judgedLate === 2) {
        second();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return agents({ agent_id: 'a', claimed_kingdom_id: null, objectives: [objective('a', String(judgedLate))] });
    },
    emit: (fields) => void emitted.push(fields),
    log: pino({ level: 'silent' }),
  });
  const alive2 = setInterval(() => {}, 1000);
  await judging;
  late.stop();
  await new Promise((resolve) => setTimeout(resolve, 30));
  clearInterval(alive2);
  t.same(emitted, [], 'a judgement that comes back after stop() emits nothing');
});

t.test('audience: a restricted event is never narrowed; the read-all-only audience cannot be changed', async (t) => {
  const athena = caller('athena', 'faction_player', 1);
  t.equal(fogClaim(athena, { kingdomIds: [1, 2], restrict: { agents: ['athena'], readAll: true } }), null);
  t.equal(fogClaim(athena, { kingdomIds: [1, 2], restrict: null }), 1);
  t.equal(fogClaim({ ...athena, partialIntel: false }, { kingdomIds: [1, 2], restrict: null }), null);
  t.equal(fogClaim(caller('zeus', 'god', null), { kingdomIds: [1, 2], restrict: null }), null);
  t.equal(fogClaim(caller('zeus', 'god', 1), { kingdomIds: [1, 2], restrict: null }), null, 'read_all under partial_intel with a claim: whole');
  const record = new StoredEvent(1, 'command', 0, 'now', [1, 2], { secret: 1 }, { agents: ['athena'], readAll: true }, new Set(['secret']));
  t.equal(record.jsonFor(athena), record.json, 'given whole to its audience');
  t.ok(Object.isFrozen(READ_ALL_ONLY) && Object.isFrozen(READ_ALL_ONLY.agents), 'shared by every reload event: frozen');
  t.same(READ_ALL_ONLY, { agents: [], readAll: true });
});

t.test('stored event: its envelope wins over fields of the same names; a field JSON cannot hold leaves the envelope', async (t) => {
  const fields = { seq: 99, kind: 'x', tick: -1, at_utc: 'no', kingdom_ids: [9], fogged: true, a: 1 };
  const event = new StoredEvent(7, 'ping', 3, 'T', [1, 2], fields, null, new Set(['a']));
  t.same(JSON.parse(event.json), { seq: 7, kind: 'ping', tick: 3, at_utc: 'T', kingdom_ids: [1, 2], a: 1 });
  t.same(JSON.parse(event.jsonFor(caller('athena', 'faction_player', 2))), { seq: 7, kind: 'ping', tick: 3, at_utc: 'T', kingdom_ids: [2], fogged: ['a'] });
  const odd = new StoredEvent(8, 'ping', 3, 'T', [], { n: 1n, s: 'é' }, null);
  t.equal(odd.json, '{"seq":8,"kind":"ping","tick":3,"at_utc":"T","kingdom_ids":[],"unserialisable":true}');
  t.equal(odd.bytes, odd.json.length);
  const wide = new StoredEvent(9, 'ping', 0, 'T', [], { s: 'é😀' }, null);
  t.equal(wide.bytes, Buffer.byteLength(wide.json), 'bytes are UTF-8 bytes');
  t.ok(wide.bytes > wide.json.length);
  t.equal(Buffer.from(wide.frame).toString(), `id: 9\nevent: ping\ndata: ${wide.json}\n\n`);
  t.equal(wide.frame, wide.frame, 'built once');
  const bare = new StoredEvent(10, 'ping', 0, 'T', [], undefined, null);
  t.equal(bare.json, '{"seq":10,"kind":"ping","tick":0,"at_utc":"T","kingdom_ids":[]}');
});

t.test('stored event: fields given as JSON text make the JSON the same fields as an object make', async (t) => {
  const fields = { agent: 'a"\\\u0001\ud800', ok: true, n: 1.5, list: [1, 'é😀'] };
  const text = `,${JSON.stringify(fields).slice(1, -1)}`;
  for (const kingdomIds of [[], [1, 2]]) {
    const asText = new StoredEvent(11, 'command', 4, '2026-11-27T16:50:14.123Z', kingdomIds, text, null);
    const asObject = new StoredEvent(11, 'command', 4, '2026-11-27T16:50:14.123Z', kingdomIds, fields, null);
    t.equal(asText.json, asObject.json);
    t.equal(asText.bytes, asObject.bytes);
  }
  t.equal(
    new StoredEvent(12, 'k"ind', Number.NaN, 'T', [], ',"a":1', null).json,
    '{"seq":12,"kind":"k\\"ind","tick":null,"at_utc":"T","kingdom_ids":[],"a":1}',
    'a kind escaped, a tick JSON cannot hold',
  );
});
