// GET /events limits and lifecycle (decisions §7): resuming past the history (gap), the
// max_event_streams cap, keep-alive comments and the kill switch.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { EVENT_COMMANDS, EVENT_GAME, openSse, startEventBridge, TOKEN, writeEventConfig } from './helpers.ts';

// One bridge for the gap and the cap: a 5-event history, 2 streams.
const limited = startEventBridge(t, { eventHistory: 5, maxEventStreams: 2 });

t.test('resuming from older than the history starts with event: gap {from, to}', async (t) => {
  const b = await limited;
  await b.cmd('emit_events', { kind: 'ping', count: 10 });
  const sse = await openSse(b.bridge.port, '/events?since=0&kinds=ping');
  await sse.waitFor((f) => f.event === 'ping', 5000, 'the kept pings');
  const head = b.bridge.stats().events.seq;
  const gap = sse.frames[0]!;
  t.equal(gap.event, 'gap', 'the gap comes first');
  t.equal(gap.id, undefined, 'a gap has no id: Last-Event-ID stays the last real event');
  const range = JSON.parse(gap.data!);
  t.equal(range.from, 1);
  t.equal(range.to, head - 5, 'to: the newest seq no longer kept');
  await until(() => sse.events().length >= 1);
  t.ok(
    sse.events().every((e) => e.seq > range.to),
    'then the kept events',
  );
  sse.close();
  const pulled = await b.cmd('recv_events', { since_seq: 0, kinds: ['ping'] });
  t.same(pulled.body.result.gap, range, 'recv_events reports the same gap');
  t.equal(pulled.body.result.oldest_seq, range.to + 1, 'oldest_seq: the oldest kept');
  t.ok(
    pulled.body.result.items.every((e: any) => e.seq > range.to),
    'recv_events: the kept events',
  );
  const fresh = await openSse(b.bridge.port, `/events?since=${head}&kinds=ping`);
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  await fresh.waitFor((f) => f.event === 'ping');
  t.notOk(
    fresh.frames.some((f) => f.event === 'gap'),
    'no gap when nothing was lost',
  );
  fresh.close();
});

t.test('max_event_streams: one more is 503 BUSY with Retry-After; a closed stream frees its place', async (t) => {
  const b = await limited;
  await until(() => b.bridge.stats().events.streams === 0, 5000, 'the earlier streams to go');
  const one = await openSse(b.bridge.port, '/events');
  const two = await openSse(b.bridge.port, '/events');
  t.equal(one.status, 200);
  t.equal(two.status, 200);
  const three = await b.fetch('/events');
  t.equal(three.status, 503);
  t.equal(three.headers.get('retry-after'), '1');
  const body = (await three.json()) as any;
  t.equal(body.error.code, 'BUSY');
  t.match(body.error.message, /max_event_streams/);
  t.equal(b.bridge.stats().slotsInUse, 0, 'streams hold no admission slot');
  t.equal((await b.cmd('get_ui_state')).status, 200, 'commands still run');
  one.close();
  await until(() => b.bridge.stats().events.streams === 1, 5000, 'the closed stream to be let go');
  const again = await openSse(b.bridge.port, '/events');
  t.equal(again.status, 200);
  again.close();
  two.close();
});

t.test('keep-alive comments; the kill switch does not stop events and emits enabled_changed', async (t) => {
  const dir = tempDir('gcb-events-');
  writeEventConfig(dir);
  // Short timings (Timings): the 15 s keep-alive and the 2 s kill-switch reload, scaled down.
  const b = await startTestBridge(t, {
    configDir: dir,
    game: EVENT_GAME,
    commandModules: [EVENT_COMMANDS],
    gameOptions: { eventsPerSecond: 60 },
    timings: { eventKeepAliveMs: 100, killSwitchReloadMs: 50 },
  });
  const sse = await openSse(b.bridge.port, '/events?kinds=ping,enabled_changed');
  await sse.waitFor((f) => f.comment !== undefined, 5000, 'a keep-alive comment');
  t.pass('an idle-or-not stream gets a comment line');
  const path = join(dir, 'bridge.toml');
  const text = `enabled = false\n[Bridge]\ntoken = "${TOKEN}"\n`;
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  const changed = await sse.waitFor((f) => f.event === 'enabled_changed', 5000, 'enabled_changed');
  t.match(JSON.parse(changed.data!), { enabled: false, kingdom_ids: [] });
  t.equal((await b.cmd('get_ui_state')).status, 503, 'POST /cmd answers DISABLED');
  const seq = JSON.parse(changed.data!).seq;
  await sse.waitFor((f) => f.event === 'ping' && JSON.parse(f.data!).seq > seq, 5000, 'events after the switch');
  const late = await openSse(b.bridge.port, '/events?kinds=ping');
  t.equal(late.status, 200, 'a new stream opens while disabled');
  await late.waitFor((f) => f.event === 'ping', 5000, 'a ping on it');
  late.close();
  sse.close();
});
