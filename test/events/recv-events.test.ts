// recv_events (decisions §7): the pull form of the event stream, over POST /cmd. With wait_ms it
// answers as soon as a matching event exists; while it waits it holds no admission slot, but it
// counts toward max_event_streams.
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { startEventBridge } from './helpers.ts';

// One bridge for the file: starting one costs seconds on a loaded machine.
const b = await startEventBridge(t);

t.test('items after since_seq, kinds, max, next_cursor, oldest_seq; unknown kinds are BAD_ARGS', async (t) => {
  await b.cmd('emit_events', { kind: 'ping', count: 5 });
  await b.cmd('emit_events', { kind: 'skirmish', count: 2, kingdom_ids: [3, 4] });
  const all = await b.cmd('recv_events', { since_seq: 0, kinds: ['ping', 'skirmish'] });
  t.equal(all.status, 200);
  const { items, count, next_cursor, oldest_seq } = all.body.result;
  t.equal(count, 7);
  t.same(
    items.map((e: any) => e.kind),
    ['ping', 'ping', 'ping', 'ping', 'ping', 'skirmish', 'skirmish'],
  );
  t.match(items[5], { kind: 'skirmish', kingdom_ids: [3, 4], i: 0, tick: Number, at_utc: String });
  t.equal(oldest_seq, 1);
  t.equal(next_cursor, b.bridge.stats().events.seq, 'fewer than max: the cursor is the newest seq looked at');
  t.notOk('gap' in all.body.result);

  const page = await b.cmd('recv_events', { since_seq: 0, kinds: ['ping'], max: 2 });
  t.same(
    page.body.result.items.map((e: any) => e.i),
    [0, 1],
  );
  t.equal(page.body.result.next_cursor, page.body.result.items[1].seq, 'a full page: the cursor is its last seq');
  const next = await b.cmd('recv_events', { since_seq: page.body.result.next_cursor, kinds: ['ping'], max: 2 });
  t.same(
    next.body.result.items.map((e: any) => e.i),
    [2, 3],
    'the next page starts after the cursor',
  );

  const unknown = await b.cmd('recv_events', { kinds: ['pong'] });
  t.equal(unknown.status, 400);
  t.equal(unknown.body.error.code, 'BAD_ARGS');
  t.ok(unknown.body.error.did_you_mean.includes('ping'));
  for (const args of [{ max: 0 }, { max: 1001 }, { wait_ms: 25_001 }, { since_seq: -1 }, { kinds: ['x'.repeat(65)] }, { extra: 1 }]) {
    t.equal((await b.cmd('recv_events', args)).status, 400, JSON.stringify(args).slice(0, 40));
  }
  const own = await b.cmd('recv_events', { since_seq: 0, kinds: ['command'] });
  t.notOk(
    own.body.result.items.some((e: any) => e.name === 'recv_events'),
    'recv_events itself is not audited (a long-poll would wake on its own record)',
  );
});

t.test('wait_ms: answers at the first matching event, or empty at the deadline', async (t) => {
  const head = b.bridge.stats().events.seq;
  const t0 = Date.now();
  const empty = await b.cmd('recv_events', { since_seq: head, kinds: ['skirmish'], wait_ms: 300 });
  const waited = Date.now() - t0;
  t.equal(empty.body.result.count, 0);
  t.ok(waited >= 280, `empty at the deadline (${waited} ms)`);
  const waiting = b.cmd('recv_events', { since_seq: b.bridge.stats().events.seq, kinds: ['skirmish'], wait_ms: 20_000 });
  await until(() => b.bridge.stats().events.waiting === 1, 30_000, 'the request to wait');
  await b.cmd('emit_events', { kind: 'ping', count: 3 });
  t.equal(b.bridge.stats().events.waiting, 1, 'events of other kinds do not wake it');
  const started = Date.now();
  await b.cmd('emit_events', { kind: 'skirmish', count: 1 });
  const answer = await waiting;
  t.ok(Date.now() - started < 10_000, 'answered at the event, long before its deadline');
  t.same(
    answer.body.result.items.map((e: any) => e.kind),
    ['skirmish'],
  );
});

t.test('an answer comes after its events: what a command emitted is there for the next read, every time', async (t) => {
  // The game thread sends the events with the answer, on one port: a client that reads right after
  // an answer sees them (they used to follow in a message of their own, which could come later).
  let missed = 0;
  for (let round = 0; round < 40; round++) {
    const head = b.bridge.stats().events.seq;
    await b.cmd('emit_events', { kind: 'skirmish', count: 3 });
    const read = await b.cmd('recv_events', { since_seq: head, kinds: ['skirmish', 'command'] });
    const kinds = read.body.result.items.map((e: any) => e.kind);
    if (kinds.join(' ') !== 'skirmish skirmish skirmish command') missed++;
  }
  t.equal(missed, 0, 'in 40 rounds, each read had the three events, then the audit record of the command');
});
