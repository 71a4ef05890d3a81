// The event layer as bridge.ts wires it (index.ts: the hub's settings, the audit of POST /cmd, the
// game's kinds and fog, the pool's calls, the objective watch, start and stop) and GET /events
// (routes.ts), through hono's app.request(): no socket, no game thread. Over real bridges:
// sse*.test.ts, audit-http.test.ts, visibility.test.ts.
import { Hono, type Context } from 'hono';
import pino from 'pino';
import t from 'tap';
import type { Outcome } from '../../src/errors/bridge-error.ts';
import type { RecvResult } from '../../src/events/hub.ts';
import { createEvents, type EventLayer } from '../../src/events/index.ts';
import { allKinds } from '../../src/events/kinds.ts';
import type { Env, RequestLog } from '../../src/http/context.ts';
import { DEFAULT_TIMINGS, LIMITS } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { caller } from './callers.ts';

const zeus = caller('zeus', 'god', null);
const athena = caller('athena', 'faction_player', 1);
const ares = caller('ares', 'faction_player', 2);

function capture(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'warn' }, { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
  return { log, lines };
}

function layer(
  options: { history?: number; maxStreams?: number; multiAgent?: boolean; keepAliveMs?: number; pollMs?: number; log?: pino.Logger } = {},
): EventLayer {
  return createEvents({
    history: options.history ?? 100,
    maxStreams: options.maxStreams ?? 4,
    multiAgent: options.multiAgent ?? true,
    tick: () => 42,
    timings: { ...DEFAULT_TIMINGS, eventKeepAliveMs: options.keepAliveMs ?? 60_000, objectivePollMs: options.pollMs ?? 60_000 },
    log: options.log ?? pino({ level: 'silent' }),
  });
}

function logLine(): RequestLog {
  return {
    rid: 'req-1',
    method: 'GET',
    path: '/',
    agent: null,
    command: null,
    status: 0,
    code: null,
    admission_wait_ms: 0,
    queue_wait_ms: 0,
    run_ms: 0,
    ms: 0,
  };
}

/** The app around the layer as createApp builds it: the caller and the log line (with the request id) come first. */
function appFor(
  events: EventLayer,
  who: CallerContext,
  cmd?: (c: Context<Env>) => Response | Promise<Response>,
): { request: (path: string, init?: RequestInit, env?: unknown) => Promise<Response>; line: RequestLog } {
  const line = logLine();
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    c.set('caller', who);
    c.set('line', line);
    await next();
  });
  app.route('/', events.routes);
  // As the credential check does: the answer's time in its log line, then every observer told.
  if (cmd) {
    app.post('/cmd', async (c) => {
      const t0 = performance.now();
      const response = await cmd(c);
      const ms = performance.now() - t0;
      line.ms = Math.round(ms * 100) / 100;
      events.entry.onAnswered!(line, c.req.path, ms / 1000, c);
      return response;
    });
  }
  return { request: async (path, init, env) => app.request(path, init, env as Env['Bindings']), line };
}

async function recv(events: EventLayer, who: CallerContext, since = 0): Promise<RecvResult> {
  const out = (await events.poolCall('recv', { since_seq: since, max: 1000 }, who, undefined)) as Outcome<RecvResult>;
  if (!out.ok) throw new Error(out.message);
  return out.value;
}

const parsed = (answer: RecvResult) => answer.items.map((json) => JSON.parse(json) as Record<string, unknown>);

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Reads the SSE body until `pattern` matches what was read (or the body ends). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp, before = ''): Promise<{ text: string; done: boolean }> {
  const decoder = new TextDecoder();
  let text = before;
  // No socket holds the loop open, and the hub's timers are unref'd: this does, while reading.
  const alive = setInterval(() => {}, 1000);
  try {
    while (!pattern.test(text)) {
      const { done, value } = await reader.read();
      if (done) return { text, done: true };
      text += decoder.decode(value, { stream: true });
    }
    return { text, done: false };
  } finally {
    clearInterval(alive);
  }
}

const seqsIn = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

t.test('createEvents: the history, the tick, the stream leases and the kinds it is given', async (t) => {
  const events = layer({ history: 3 });
  for (let i = 0; i < 5; i++) events.hub.emit('turn_changed', { i });
  const answer = await recv(events, zeus);
  t.same(
    parsed(answer).map((e) => e.seq),
    [3, 4, 5],
    'history: the last 3',
  );
  t.equal(parsed(answer)[0]!.tick, 42, 'the main loop’s events carry the world tick');
  t.equal(events.hub.streamLeases.limit, 4);
  const taken = [events.hub.streamLeases.takeFor(athena), events.hub.streamLeases.takeFor(athena), events.hub.streamLeases.takeFor(athena)];
  t.same(
    taken.map((lease) => 'ok' in lease),
    [false, false, true],
    'multi-agent: one agent holds at most half of the streams',
  );
  t.equal(
    (taken[2] as { message: string }).message,
    "agent 'athena' already holds 2 event streams, its share (half of the 4 of [Bridge] max_event_streams, rounded up); close one, or retry later",
  );
  const legacy = layer({ maxStreams: 2, multiAgent: false });
  t.notOk('ok' in legacy.hub.streamLeases.takeFor(zeus));
  t.notOk('ok' in legacy.hub.streamLeases.takeFor(zeus), 'one agent alone may hold every stream');
  t.equal(
    (legacy.hub.streamLeases.takeFor(zeus) as { message: string }).message,
    'all 2 event streams are taken ([Bridge] max_event_streams; streams and waiting recv_events count); close one of yours, or retry later',
  );
  t.same(
    events.hub.parseKinds(['command', 'world_saved', 'agents_reloaded'], 'kinds'),
    new Set(['command', 'world_saved', 'agents_reloaded']),
    'the bridge’s kinds',
  );
  t.match(events.hub.parseKinds(['ping'], 'kinds'), { ok: false, code: 'BAD_ARGS' }, 'no game kind before the game declares it');
  // A name near none of them ties with all: the suggestions show the list itself, in its order.
  const far = events.hub.parseKinds(['z'.repeat(30)], 'kinds') as { did_you_mean: string[] };
  t.same(far.did_you_mean, allKinds([]).slice(0, 5), 'the bridge’s kinds alone, sorted');
  await events.stop();
  await legacy.stop();
});

t.test('GET /events: the stream, its headers, its backlog from since, live events, a clean end at stop()', async (t) => {
  const events = layer();
  events.hub.emit('turn_changed', {}, [1]);
  events.hub.emit('turn_changed', {}, [2]);
  events.hub.emit('turn_changed', {}, [2]);
  const { request, line } = appFor(events, zeus);
  const response = await request('/events?since=1');
  t.equal(response.status, 200);
  t.equal(line.status, 200, 'the log line says 200');
  t.equal(response.headers.get('content-type'), 'text/event-stream');
  t.equal(response.headers.get('x-request-id'), 'req-1');
  t.equal(response.headers.get('x-event-run'), events.hub.run);
  t.match(events.hub.run, /^[0-9a-f]{16}$/);
  t.equal(response.headers.get('x-event-seq'), '3');
  t.equal(response.headers.get('x-content-type-options'), 'nosniff');
  t.equal(response.headers.get('cache-control'), 'no-store', 'never kept by a cache: it holds what only this caller may see');
  t.equal(events.hub.streamLeases.inUse, 1, 'the stream holds a stream lease');
  const reader = response.body!.getReader();
  let read = await readUntil(reader, /^id: 3$/m);
  t.same(seqsIn(read.text), [2, 3], 'the backlog after since');
  events.hub.emit('turn_changed', { live: true });
  read = await readUntil(reader, /^id: 4$/m, read.text);
  t.match(read.text, /^event: turn_changed\ndata: \{"seq":4,"kind":"turn_changed","tick":42,"at_utc":"[^"]+","kingdom_ids":\[\],"live":true\}$/m);
  await events.stop();
  read = await readUntil(reader, /$^/, read.text);
  t.ok(read.done, 'stop() ends the response');
  t.equal(events.hub.streamLeases.inUse, 0, 'and gives its slot back');
});

t.test('GET /events: X-Event-Seq without read_all is the last event the caller may see', async (t) => {
  const events = layer();
  events.hub.emit('turn_changed', {}, [1]);
  events.hub.emit('turn_changed', {}, [2]);
  const response = await appFor(events, athena).request('/events');
  t.equal(response.headers.get('x-event-seq'), '1');
  const reader = response.body!.getReader();
  events.hub.emit('turn_changed', { n: 1 }, [2]);
  events.hub.emit('turn_changed', { n: 2 }, [1]);
  const read = await readUntil(reader, /^id: 4$/m);
  t.same(seqsIn(read.text), [4], 'live only (no since), and only what it may see');
  await events.stop();
});

t.test('GET /events: Last-Event-ID before since; resume points that are not seqs are BAD_ARGS', async (t) => {
  const events = layer();
  for (let i = 0; i < 4; i++) events.hub.emit('turn_changed', { i });
  const { request } = appFor(events, zeus);
  const resumed = await request('/events?since=0', { headers: { 'last-event-id': '2' } });
  t.equal(resumed.status, 200);
  const reader = resumed.body!.getReader();
  const read = await readUntil(reader, /^id: 4$/m);
  t.same(seqsIn(read.text), [3, 4], 'Last-Event-ID wins over since');
  await reader.cancel();
  const far = await request('/events?since=999999999999999');
  t.equal(far.status, 200, '15 digits: a seq (after the newest: live only)');
  await far.body!.cancel();
  const refused: Array<[string, Record<string, string>, string]> = [
    ['/events?since=abc', {}, "since 'abc' is not a non-negative integer (an event seq)"],
    ['/events?since=-1', {}, "since '-1' is not a non-negative integer (an event seq)"],
    ['/events?since=1a', {}, "since '1a' is not a non-negative integer (an event seq)"],
    ['/events?since=a1', {}, "since 'a1' is not a non-negative integer (an event seq)"],
    ['/events?since=1000000000000000', {}, "since '1000000000000000' is not a non-negative integer (an event seq)"],
    ['/events?since=', {}, "since '' is not a non-negative integer (an event seq)"],
    ['/events', { 'last-event-id': 'x' }, "Last-Event-ID 'x' is not a non-negative integer (an event seq)"],
    ['/events?since=1', { 'last-event-id': '-5' }, "Last-Event-ID '-5' is not a non-negative integer (an event seq)"],
    [`/events?since=${'y'.repeat(32)}`, {}, `since '${'y'.repeat(32)}' is not a non-negative integer (an event seq)`],
    [`/events?since=${'z'.repeat(33)}`, {}, `since '${'z'.repeat(32)}…' is not a non-negative integer (an event seq)`],
  ];
  for (const [path, headers, message] of refused) {
    const app = appFor(events, zeus);
    const response = await app.request(path, { headers });
    t.equal(response.status, 400, path);
    t.same(await response.json(), { ok: false, error: { code: 'BAD_ARGS', message, command: '', args: {} } }, message);
    t.equal(app.line.code, 'BAD_ARGS');
    t.equal(response.headers.get('x-request-id'), 'req-1');
  }
  t.equal(events.hub.streamLeases.inUse, 0, 'no refused request holds a slot');
  await events.stop();
});

t.test('GET /events: kinds filters the stream; an unknown kind is BAD_ARGS with suggestions', async (t) => {
  const events = layer();
  events.setGameKinds(['ping', 'pong']);
  events.hub.emit('ping', { n: 1 });
  events.hub.emit('pong', { n: 2 });
  events.hub.emit('ping', { n: 3 });
  const { request } = appFor(events, zeus);
  const filtered = await request('/events?since=0&kinds=pong,');
  const reader = filtered.body!.getReader();
  let read = await readUntil(reader, /^id: 2$/m);
  events.hub.emit('ping', { n: 4 });
  events.hub.emit('pong', { n: 5 });
  read = await readUntil(reader, /^id: 5$/m, read.text);
  t.same(seqsIn(read.text), [2, 5], 'pong only, from the backlog and live');
  const bad = await request('/events?kinds=pnig');
  t.equal(bad.status, 400);
  const body = (await bad.json()) as { error: { code: string; message: string; did_you_mean: string[] } };
  t.same(body, {
    ok: false,
    error: {
      code: 'BAD_ARGS',
      message: "kinds: unknown event kind 'pnig' (GET /capabilities lists event_kinds)",
      command: '',
      args: {},
      did_you_mean: body.error.did_you_mean,
    },
  });
  t.equal(body.error.did_you_mean[0], 'ping');
  const all = await request('/events?kinds=');
  t.equal(all.status, 200, 'an empty list filters nothing');
  await all.body!.cancel();
  await events.stop();
});

t.test('GET /events: a client that goes away gives its slot back; one that stops reading is dropped', async (t) => {
  const events = layer({ multiAgent: false });
  const { request } = appFor(events, zeus);
  const gone = await request('/events');
  t.equal(events.hub.streamLeases.inUse, 1);
  await gone.body!.cancel();
  await until(() => events.hub.streamLeases.inUse === 0, 'the slot back');
  t.equal(events.hub.stats.streams, 0, 'its subscriber is gone');

  // Served by @hono/node-server, the connection itself is dropped.
  let destroyed = 0;
  const stalled = await request('/events', {}, { outgoing: { destroy: () => void destroyed++ } });
  const pad = 'x'.repeat(64 * 1024);
  for (let i = 0; i * pad.length <= 2 * LIMITS.eventStreamBufferBytes && events.hub.stats.overflowed === 0; i++) {
    events.hub.emit('turn_changed', { i, pad });
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(events.hub.stats.overflowed, 1, 'it fell a whole buffer behind');
  t.equal(destroyed, 1, 'its connection is destroyed');
  t.equal(events.hub.streamLeases.inUse, 0);
  await stalled.body!.cancel();

  // Without a Node connection (app.request), the stream is aborted: nothing more reaches the client.
  const aborted = await request('/events');
  for (let i = 0; i * pad.length <= 2 * LIMITS.eventStreamBufferBytes && events.hub.stats.overflowed === 1; i++) {
    events.hub.emit('turn_changed', { i, pad });
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(events.hub.stats.overflowed, 2);
  t.equal(events.hub.streamLeases.inUse, 0);
  // The response had taken one chunk (one event here) before the client stopped reading; the
  // one in flight and the rest are dropped with the stream.
  const rest = seqsIn(await aborted.text());
  t.equal(rest.length, 1, `the client gets the one chunk already taken, no more (${rest.join()})`);
  await events.stop();
});

t.test('start(): a keep-alive comment on idle streams, every eventKeepAliveMs; stop() ends it', async (t) => {
  const events = layer({ keepAliveMs: 20 });
  events.start();
  const response = await appFor(events, zeus).request('/events');
  const reader = response.body!.getReader();
  const read = await readUntil(reader, /^: keep-alive\n\n: keep-alive\n\n/m);
  t.notOk(read.done, 'two keep-alives on a stream with no event');
  await events.stop();
  t.ok((await readUntil(reader, /$^/, read.text)).done);
});

t.test('the audit of POST /cmd: one `command` record per answer but refusals, seen by read_all holders and its sender', async (t) => {
  const events = layer();
  const answer = (status: number, code: RequestLog['code'], request?: { name: string; args: Record<string, unknown> }, delayMs = 0) =>
    appFor(events, athena, async (c) => {
      if (request) c.set('cmdRequest', request);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      c.get('line').status = status;
      c.get('line').code = code;
      return c.json({}, status as 200);
    }).request('/cmd', { method: 'POST' });
  const started = performance.now();
  await answer(200, null, { name: 'spawn', args: { x: 1, token: 'secret' } }, 40);
  const elapsed = performance.now() - started;
  const [record] = parsed(await recv(events, zeus));
  const { ms: recordMs, at_utc: atUtc, ...fields } = record!;
  t.same(fields, {
    seq: 1,
    kind: 'command',
    tick: 42,
    kingdom_ids: [],
    agent: 'athena',
    name: 'spawn',
    args: { x: 1, token: '<redacted>' },
    ok: true,
    code: null,
    status: 200,
  });
  t.match(atUtc, /^\d{4}-\d\d-\d\dT/);
  const ms = recordMs as number;
  t.ok(ms >= 30 && ms <= elapsed, `ms is the answer's time (${ms} ms; the handler waited 40 ms, the request took ${elapsed.toFixed(2)})`);
  t.ok(Math.abs(ms * 100 - Math.round(ms * 100)) < 1e-6, 'rounded to two decimals');
  t.equal((await recv(events, athena)).count, 1, 'its sender sees it');
  t.equal((await recv(events, ares)).count, 0, 'another player does not');

  await answer(422, 'GAME_REJECTED', { name: 'n'.repeat(100), args: { blob: 'b'.repeat(200) } });
  const failed = parsed(await recv(events, zeus, 1))[0]!;
  t.match(failed, { name: 'n'.repeat(63) + '…', ok: false, code: 'GAME_REJECTED', status: 422, truncated: true, args_bytes: 211 }); // {"blob":"b…b"}
  t.equal((failed.args as { blob: string }).blob, 'b'.repeat(127) + '…');

  await answer(500, 'GAME_CRASH');
  const { ms: _ms, at_utc: _at, ...crash } = parsed(await recv(events, zeus, 2))[0]!;
  t.same(
    crash,
    { seq: 3, kind: 'command', tick: 42, kingdom_ids: [], agent: 'athena', name: null, args: null, ok: false, code: 'GAME_CRASH', status: 500 },
    'no parsed request: no name, no args',
  );

  for (const [status, code] of [
    [400, 'BAD_ARGS'],
    [403, 'PERMISSION_DENIED'],
    [409, 'TURN_NOT_YOURS'],
    [503, 'BUSY'],
  ] as const) {
    await answer(status, code, { name: 'spawn', args: {} });
  }
  await answer(200, null, { name: 'recv_events', args: {} });
  // Told of every answer of the app: another endpoint's is none of its business.
  events.audit({ ...logLine(), status: 200, agent: 'athena' }, '/health', 0.001, undefined as never);
  t.equal(events.hub.seq, 3, 'refusals, recv_events and other endpoints leave no record');
  await events.stop();
});

t.test('the audit: the record says where the command ran (tick, order) when it reached the game thread', async (t) => {
  const events = layer();
  t.equal(events.entry.onAnswered, events.audit, 'told of every answer');
  t.equal(events.entry.routes, events.routes, 'beside GET /events');
  await appFor(events, athena, (c) => {
    c.set('cmdRequest', { name: 'spawn', args: {} });
    c.set('place', { tick: 12, order: 3 });
    c.get('line').status = 200;
    return c.json({});
  }).request('/cmd', { method: 'POST' });
  t.same(parsed(await recv(events, zeus))[0]!.place, { tick: 12, order: 3 });
  await events.stop();
});

t.test("setGameKinds: the game's kinds and fog are checked, warned about once each, and taken by the hub", async (t) => {
  const { log, lines } = capture();
  const events = layer({ log });
  const long = 'K'.repeat(100);
  const all = events.setGameKinds(['ping', 'Bad Kind', 'command', long], { ping: ['secret'], nope: ['x'], [long]: ['y'] });
  t.same(
    lines.map((line) => [line.kind, line.msg]),
    [
      ['Bad Kind', "the game's eventKinds entry 'Bad Kind' is ignored: an event kind must match ^[a-z][a-z0-9_]{0,63}$"],
      ['command', "the game's eventKinds entry 'command' is ignored: only the bridge emits this kind"],
      ['K'.repeat(64), `the game's eventKinds entry '${'K'.repeat(64)}' is ignored: an event kind must match ^[a-z][a-z0-9_]{0,63}$`],
      ['nope', "the game's eventFog entry 'nope' is ignored: eventFog names a kind the game does not declare in eventKinds"],
      ['K'.repeat(64), `the game's eventFog entry '${'K'.repeat(64)}' is ignored: eventFog names a kind the game does not declare in eventKinds`],
    ],
  );
  t.ok(
    lines.every((line) => line.level === 40),
    'warnings',
  );
  t.same(all, [...all].sort(), 'sorted');
  t.ok(all.includes('ping') && all.includes('command') && !all.includes('Bad Kind'));
  t.same(events.hub.parseKinds(['ping'], 'kinds'), new Set(['ping']), 'the hub takes the kinds');
  events.publishBatch({
    type: 'events',
    at: Date.parse('2026-11-27T10:00:00Z'),
    dropped: 2,
    events: [{ kind: 'ping', tick: 9, kingdomIds: [1, 2], fields: { secret: 's', n: 1 } }],
  });
  t.equal(events.hub.stats.dropped, 2, 'batches reach the hub');
  t.match(
    parsed(await recv(events, athena))[0],
    { kind: 'ping', tick: 9, at_utc: '2026-11-27T10:00:00.000Z', kingdom_ids: [1], n: 1, fogged: ['secret'] },
    'and the fog',
  );
  t.match(parsed(await recv(events, zeus))[0], { kingdom_ids: [1, 2], secret: 's' });
  lines.length = 0;
  events.setGameKinds(undefined);
  t.same(lines, [], 'nothing declared: nothing to warn about');
  t.match(events.hub.parseKinds(['ping'], 'kinds'), { ok: false }, 'kinds set again');
  await events.stop();
});

t.test('poolCall: recv_events, and a pool step may emit world_saved only', async (t) => {
  const events = layer();
  t.same(await events.poolCall('emit', { kind: 'world_saved', fields: { path: 'a' } }, zeus, undefined), { ok: true, value: null });
  t.same(await events.poolCall('emit', { kind: 'command', fields: {} }, zeus, undefined), {
    ok: false,
    code: 'BAD_ARGS',
    message: "a pool step may not emit 'command'",
  });
  const answer = await recv(events, zeus);
  t.same(
    parsed(answer).map((e) => [e.kind, e.path]),
    [['world_saved', 'a']],
  );
  let released = 0;
  const waiting = events.poolCall('recv', { since_seq: 1, wait_ms: 10_000 }, zeus, { release: () => void released++ });
  await until(() => events.hub.stats.waiting === 1, 'the wait');
  t.equal(released, 1, 'a waiting recv_events gives its admission slot back');
  events.hub.emit('turn_changed', {});
  t.match(await waiting, { ok: true, value: { count: 1, next_cursor: 2 } });
  await events.stop();
});

t.test('watchObjectives: judged every objectivePollMs into objective_changed; a new source replaces the old; stop() ends it', async (t) => {
  const events = layer({ pollMs: 5 });
  const source = (label: string, statuses: string[]) => {
    let looks = 0;
    return {
      get looks() {
        return looks;
      },
      kingdoms: async () => ({ ok: true as const, value: [] }),
      judge: async () => {
        const status = statuses[Math.min(looks++, statuses.length - 1)]!;
        return {
          ok: true as const,
          value: { agents: [{ agent_id: 'athena', claimed_kingdom_id: 1, objectives: [{ id: label, label, kind: 'k', status, progress: null }] }] },
        };
      },
    };
  };
  const first = source('first', ['pending']);
  events.watchObjectives(first);
  await until(() => first.looks >= 2, 'two looks');
  const second = source('second', ['pending', 'pending', 'done']);
  events.watchObjectives(second);
  const stoppedAt = first.looks;
  await until(() => second.looks >= 3 && events.hub.seq >= 1, 'the change');
  t.ok(first.looks <= stoppedAt + 1, 'the first source is no longer judged');
  t.match(parsed(await recv(events, zeus)), [{ kind: 'objective_changed', kingdom_ids: [1], objective_id: 'second', status: 'done', previous: 'pending' }]);
  t.equal((await recv(events, ares)).count, 0, 'about kingdom 1: not for another player under fog');
  await events.stop();
  const looks = second.looks;
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.ok(second.looks <= looks + 1, 'stop() ends the watch');

  const slow = layer({ pollMs: 60_000 });
  const idle = source('idle', ['pending']);
  slow.watchObjectives(idle);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(idle.looks, 0, 'objectivePollMs apart');
  await slow.stop();
});

t.test('GET /events: no stream lease is 503 BUSY, with Retry-After, naming the cap', async (t) => {
  const events = layer({ maxStreams: 2 });
  const { request } = appFor(events, athena);
  const open = await request('/events');
  t.equal(open.status, 200);
  const app = appFor(events, athena);
  const refused = await app.request('/events');
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('retry-after'), '1');
  t.same(await refused.json(), {
    ok: false,
    error: {
      code: 'BUSY',
      message: "agent 'athena' already holds 1 event streams, its share (half of the 2 of [Bridge] max_event_streams, rounded up); close one, or retry later",
      command: '',
      args: {},
    },
  });
  t.equal(app.line.code, 'BUSY');
  t.equal(events.hub.streamLeases.inUse, 1);
  await open.body!.cancel();
  await events.stop();
});
