// GET /events over real HTTP (decisions §7): SSE framing, kinds and resume, the credential and
// Host/Origin rules (sse-limits.test.ts: gaps, the stream cap, keep-alive, kill switch, close).
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { openSse, startEventBridge, TOKEN } from './helpers.ts';

// One bridge for the file: starting one costs seconds on a loaded machine.
const b = await startEventBridge(t);

t.test('framing: id is the seq, event the kind, data the event JSON; the first world is an event', async (t) => {
  const sse = await openSse(b.bridge.port, '/events?since=0');
  t.equal(sse.status, 200);
  t.match(sse.headers['content-type'], /^text\/event-stream/);
  t.ok(sse.headers['x-request-id'], 'X-Request-Id like every answer');
  t.notOk(
    Object.keys(sse.headers).some((h) => h.startsWith('access-control-')),
    'no CORS header',
  );
  const first = await sse.waitFor((f) => f.event === 'world_generated', 5000, 'world_generated');
  t.equal(first.id, '1');
  const data = JSON.parse(first.data!);
  t.match(data, { seq: 1, kind: 'world_generated', tick: Number, kingdom_ids: [], cause: 'startup' });
  t.ok(!Number.isNaN(Date.parse(data.at_utc)), 'at_utc is a date');
  t.equal((await b.cmd('emit_events', { kind: 'ping', count: 3, kingdom_ids: [2] })).status, 200);
  await sse.waitFor((f) => f.event === 'ping' && JSON.parse(f.data!).i === 2, 5000, 'three pings');
  const pings = sse.events().filter((e) => e.kind === 'ping');
  t.same(
    pings.map((e) => e.i),
    [0, 1, 2],
  );
  for (const ping of pings) t.same(ping.kingdom_ids, [2]);
  const seqs = sse.frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
  t.same(
    seqs,
    [...seqs].sort((a, b) => a - b),
    'seqs increase',
  );
  t.equal(new Set(seqs).size, seqs.length, 'no seq twice');
  for (const frame of sse.frames.filter((f) => f.data)) t.equal(JSON.parse(frame.data!).seq, Number(frame.id), 'id: is the seq in data');
  sse.close();
});

t.test('/capabilities lists event_kinds: the bridge’s and the game’s, sorted; a bad declared kind is warned about', async (t) => {
  const caps = (await (await b.fetch('/capabilities')).json()) as { event_kinds: string[]; mod_version: string };
  const kinds = caps.event_kinds;
  t.same(kinds, [...kinds].sort(), 'sorted');
  for (const kind of ['ping', 'skirmish', 'big', 'command', 'message', 'world_generated', 'world_loaded', 'world_saved', 'enabled_changed']) {
    t.ok(kinds.includes(kind), kind);
  }
  t.equal(new Set(kinds).size, kinds.length, 'each once (the game also declared message)');
  t.notOk(kinds.includes('Bad Kind'));
  t.ok(
    b.logs.some((line) => line.level === 40 && /Bad Kind/.test(String(line.msg))),
    'one warning names the ignored kind',
  );
});

t.test('kinds filter, unknown kinds, bad since, resume by since and Last-Event-ID', async (t) => {
  const start = b.bridge.stats().events.seq;
  const skirmishes = await openSse(b.bridge.port, '/events?kinds=skirmish,big');
  await b.cmd('emit_events', { kind: 'ping', count: 2 });
  await b.cmd('emit_events', { kind: 'skirmish', count: 1 });
  await skirmishes.waitFor((f) => f.event === 'skirmish', 5000, 'the skirmish');
  t.same(
    skirmishes.frames.filter((f) => f.event).map((f) => f.event),
    ['skirmish'],
    'only the kinds asked for (no pings, no command records)',
  );
  t.equal(skirmishes.frames[0]!.id !== undefined, true);
  skirmishes.close();

  const unknown = await b.fetch('/events?kinds=ping,skirmsh');
  t.equal(unknown.status, 400);
  const body = (await unknown.json()) as any;
  t.equal(body.error.code, 'BAD_ARGS');
  t.match(body.error.message, /skirmsh/);
  t.equal(body.error.did_you_mean[0], 'skirmish', 'did_you_mean, nearest first');
  const long = (await (await b.fetch(`/events?kinds=${'k'.repeat(65)}`)).json()) as any;
  t.equal(long.error.code, 'BAD_ARGS');
  t.notOk('did_you_mean' in long.error, 'no suggestions for a value over 64 characters (decisions §11)');
  t.equal((await b.fetch('/events?kinds=Bad%20Kind')).status, 400, "a declared kind that is not a valid name is not one of the game's kinds");

  for (const since of ['-1', 'abc', '1.5', '', '1e3', '99999999999999999999']) {
    const answer = await b.fetch(`/events?since=${since}`);
    t.equal(answer.status, 400, `since=${since}`);
    t.equal(((await answer.json()) as any).error.code, 'BAD_ARGS');
  }
  const badHeader = await b.fetch('/events', { headers: { 'last-event-id': 'x1' } });
  t.equal(badHeader.status, 400, 'Last-Event-ID that is not a seq');
  await badHeader.body?.cancel();

  const all = await openSse(b.bridge.port, `/events?since=${start}&kinds=ping`);
  await all.waitFor((f) => f.event === 'ping' && JSON.parse(f.data!).i === 1, 5000, 'both pings');
  const [firstPing, secondPing] = all.events();
  all.close();
  const resumed = await openSse(b.bridge.port, `/events?since=${firstPing!.seq}&kinds=ping`);
  await resumed.waitFor((f) => f.event === 'ping', 5000, 'the second ping');
  t.same(
    resumed.events().map((e) => e.seq),
    [secondPing!.seq],
    'since=SEQ: events after it',
  );
  resumed.close();
  const byHeader = await openSse(b.bridge.port, `/events?since=${start}&kinds=ping`, { headers: { 'last-event-id': String(firstPing!.seq) } });
  await byHeader.waitFor((f) => f.event === 'ping', 5000, 'the second ping');
  t.same(
    byHeader.events().map((e) => e.seq),
    [secondPing!.seq],
    'Last-Event-ID wins over the since of the URL (what a reconnecting EventSource sends)',
  );
  byHeader.close();
  const live = await openSse(b.bridge.port, '/events?kinds=ping');
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  await live.waitFor((f) => f.event === 'ping', 5000, 'a live ping');
  t.equal(live.events().length, 1, 'without since: live events only');
  live.close();
});

t.test('401 before anything: no stream, no slot; Host and Origin as every endpoint', async (t) => {
  const port = b.bridge.port;
  const cases: Array<[string, Parameters<typeof openSse>[2]]> = [
    ['no credential', { token: null }],
    ['a wrong credential', { token: 'x'.repeat(48) }],
    ['a foreign Host', { headers: { host: `evil.example:${port}` } }],
    ['a foreign Origin', { headers: { origin: 'http://evil.example' } }],
  ];
  for (const [what, options] of cases) {
    const answer = await openSse(port, '/events?since=0&kinds=nonsense', options);
    await answer.ended;
    t.equal(answer.status, 401, what);
    t.equal(JSON.parse(answer.body).error.code, 'UNAUTHORIZED', `${what}: 401 before the kinds are even read`);
  }
  t.equal(b.bridge.stats().events.streams, 0);
  const allowed = await openSse(port, '/events', { headers: { host: `localhost:${port}`, origin: `http://127.0.0.1:${port}` } });
  t.equal(allowed.status, 200, 'localhost Host and a loopback Origin are fine');
  allowed.close();
  await until(() => b.bridge.stats().events.streams === 0, 5000, 'the first stream to go');
  const legacyHeader = await openSse(port, '/events', { token: null, headers: { 'x-wb-token': TOKEN } });
  t.equal(legacyHeader.status, 200, 'X-WB-Token works too');
  legacyHeader.close();
});
