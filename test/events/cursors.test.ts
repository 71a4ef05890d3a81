// decisions §13 cursors, over real HTTP in multi-agent mode with partial_intel: for an agent
// without read_all, recv_events' next_cursor and GET /events' X-Event-Seq are the seq of the last
// event it may see, so they stand still while only hidden events happen (another kingdom's, another
// agent's command records) and move for its own; a since_seq beyond them still works. read_all
// holders see the global counter.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { EVENT_COMMANDS, EVENT_GAME, openSse } from './helpers.ts';

const secret = (id: string) => `${id}-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789`;
const AGENTS = [
  { id: 'zeus', role: 'god' },
  { id: 'owl', role: 'observer' },
  { id: 'athena', role: 'faction_player', kingdom_claim: 'id:1' },
  { id: 'ares', role: 'faction_player', kingdom_claim: 'id:2' },
];

const dir = tempDir('gcb-events-cursors-');
writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(48)}"\n`);
writeFileSync(join(dir, 'agents.json'), JSON.stringify({ scenario: 'pvp', partial_intel: true, agents: AGENTS.map((a) => ({ ...a, token: secret(a.id) })) }));
const b = await startTestBridge(t, { configDir: dir, game: EVENT_GAME, commandModules: [EVENT_COMMANDS] });
const as = (id: string, name: string, args?: unknown) => b.cmd(name, args, { headers: { authorization: `Bearer ${secret(id)}` } });
const globalSeq = () => b.bridge.stats().events.seq;

async function cursorOf(id: string, since = 0): Promise<{ next_cursor: number; items: Array<Record<string, any>> }> {
  const answer = await as(id, 'recv_events', { since_seq: since, max: 1000 });
  if (answer.status !== 200) throw new Error(`recv_events as ${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.result;
}

async function streamSeq(id: string): Promise<number> {
  const sse = await openSse(b.bridge.port, '/events', { token: secret(id) });
  if (sse.status !== 200) throw new Error(`GET /events as ${id}: ${sse.status} ${sse.body}`);
  const seq = Number(sse.headers['x-event-seq']);
  sse.close();
  await until(() => b.bridge.stats().events.streams === 0, 5000, 'the stream to go');
  return seq;
}

/** Events only athena may not see: kingdom 2's, and the command records of ares and zeus. */
async function hiddenFromAthena(): Promise<void> {
  t.equal((await as('zeus', 'emit_events', { kind: 'big', kingdom_ids: [2], count: 3 })).status, 200);
  t.equal((await as('ares', 'emit_events', { kind: 'skirmish', kingdom_ids: [2] })).status, 200);
  t.equal((await as('ares', 'get_ui_state')).status, 200);
  t.equal((await as('owl', 'get_ui_state')).status, 200);
}

t.test('a player’s cursors stand still while only hidden events happen, and move for its own', async (t) => {
  const start = await cursorOf('athena');
  const startSeq = await streamSeq('athena');
  t.equal(startSeq, start.next_cursor, 'X-Event-Seq and next_cursor agree');
  t.equal(start.next_cursor, start.items.at(-1)?.seq ?? 0, 'the seq of the last event it may see');

  const before = globalSeq();
  await hiddenFromAthena();
  t.ok(globalSeq() >= before + 7, `the global counter moved (${before} → ${globalSeq()})`);
  const still = await cursorOf('athena', start.next_cursor);
  t.equal(still.items.length, 0, 'nothing new for athena');
  t.equal(still.next_cursor, start.next_cursor, 'next_cursor stands still');
  t.equal(await streamSeq('athena'), startSeq, 'X-Event-Seq stands still');
  t.equal((await cursorOf('athena', 0)).next_cursor, start.next_cursor, 'from 0 too');

  // Its own kingdom's event: the cursor moves to it, and by one step whatever was hidden between.
  t.equal((await as('zeus', 'emit_events', { kind: 'skirmish', kingdom_ids: [1] })).status, 200);
  const own = await cursorOf('athena', still.next_cursor);
  t.same(
    own.items.map((e) => [e.kind, e.kingdom_ids]),
    [['skirmish', [1]]],
  );
  t.equal(own.next_cursor, own.items[0]!.seq, 'next_cursor: the seq of its kingdom’s event');
  t.ok(own.next_cursor < globalSeq(), 'zeus’s command record after it is not counted');
  t.equal(await streamSeq('athena'), own.next_cursor);

  // Its own command record.
  await hiddenFromAthena();
  t.equal((await as('athena', 'get_ui_state')).status, 200);
  const mine = await cursorOf('athena', own.next_cursor);
  t.same(
    mine.items.map((e) => [e.kind, e.agent, e.name]),
    [['command', 'athena', 'get_ui_state']],
  );
  t.equal(mine.next_cursor, mine.items[0]!.seq, 'next_cursor: the seq of its own command record');
  t.equal(await streamSeq('athena'), mine.next_cursor);

  // The other player's view is its own.
  const aresView = await cursorOf('ares');
  t.equal(aresView.next_cursor, aresView.items.at(-1)!.seq);
  t.not(aresView.next_cursor, mine.next_cursor);
});

t.test('read_all holders see the global counter', async (t) => {
  await hiddenFromAthena();
  for (const id of ['zeus', 'owl']) {
    const seq = globalSeq();
    t.equal((await cursorOf(id, seq)).next_cursor, seq, `${id}: next_cursor`);
    t.equal(await streamSeq(id), globalSeq(), `${id}: X-Event-Seq`);
  }
});

t.test('a since_seq beyond the cursor still works: later events it may see come back', async (t) => {
  const cursor = (await cursorOf('athena')).next_cursor;
  await hiddenFromAthena();
  const beyond = globalSeq();
  t.ok(beyond > cursor);
  const empty = await cursorOf('athena', beyond);
  t.equal(empty.items.length, 0);
  t.equal(empty.next_cursor, cursor, 'the cursor still names the last event it may see');
  const waiting = as('athena', 'recv_events', { since_seq: beyond, kinds: ['skirmish'], wait_ms: 20_000 });
  await until(() => b.bridge.stats().events.waiting === 1, 30_000, 'the recv_events to wait');
  await hiddenFromAthena();
  t.equal((await as('zeus', 'emit_events', { kind: 'skirmish', kingdom_ids: [1, 2] })).status, 200);
  const answer = await waiting;
  t.equal(answer.status, 200);
  t.same(
    answer.body.result.items.map((e: any) => [e.kind, e.kingdom_ids]),
    [['skirmish', [1]]],
    'the first event it may see after since_seq (its fog form)',
  );
  t.equal(answer.body.result.next_cursor, answer.body.result.items[0].seq);
  const sse = await openSse(b.bridge.port, `/events?since=${beyond}&kinds=skirmish`, { token: secret('athena') });
  await sse.waitFor((f) => f.event === 'skirmish', 5000, 'the backlog after a since beyond the cursor');
  t.same(
    sse.events().map((e) => e.seq),
    [answer.body.result.items[0].seq],
  );
  sse.close();
});
