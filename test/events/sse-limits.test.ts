// GET /events limits and lifecycle (decisions §7): resuming past the history (gap), the
// max_event_streams cap (sse-keepalive.test.ts: keep-alive comments and the kill switch).
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { openSse, startEventBridge } from './helpers.ts';

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
