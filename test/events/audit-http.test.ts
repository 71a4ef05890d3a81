// decisions §13 over real HTTP: a refused request is no event (it is counted in gcb_requests_total
// and logged), so a flood of refusals with 1 MB args neither grows the history nor pushes world
// events out of it; what ran keeps its record, with a summary of its args of at most 2 KiB; an
// observer sees send_message's record without the message's content.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';
import { EVENT_COMMANDS, EVENT_GAME, openSse } from './helpers.ts';

const HISTORY = 60;
const secret = (id: string) => `${id}-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789`;
const dir = tempDir('gcb-events-audit-');
writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(48)}"\nevent_history = ${HISTORY}\n`);
writeFileSync(
  join(dir, 'agents.json'),
  JSON.stringify({
    scenario: 'pvp',
    partial_intel: false,
    agents: [
      { id: 'zeus', role: 'god' },
      { id: 'owl', role: 'observer' },
      { id: 'athena', role: 'faction_player', kingdom_claim: 'id:1' },
      { id: 'ares', role: 'faction_player', kingdom_claim: 'id:2' },
    ].map((a) => ({ ...a, token: secret(a.id) })),
  }),
);
const b = await startTestBridge(t, { configDir: dir, game: EVENT_GAME, commandModules: [EVENT_COMMANDS, fixture('audit-commands.ts')] });
const as = (id: string, name: string, args?: unknown) => b.cmd(name, args, { headers: { authorization: `Bearer ${secret(id)}` } });

/** Everything zeus (read_all) can read from the history. */
async function history(since = 0): Promise<{ items: Array<Record<string, any>>; oldest_seq: number; gap?: unknown }> {
  const answer = await as('zeus', 'recv_events', { since_seq: since, max: 1000 });
  if (answer.status !== 200) throw new Error(`recv_events answered ${answer.status}`);
  return answer.body.result;
}

/** Runs `count` calls of `call`, `parallel` at a time. */
async function flood(count: number, parallel: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

const MB_ARGS = { blob: 'x'.repeat(1_000_000), nested: { list: Array.from({ length: 100 }, (_, i) => `item-${i}`) } };

t.test('refusals are no events: a flood of them with 1 MB args leaves the world events in the history', async (t) => {
  t.equal((await as('zeus', 'emit_events', { kind: 'ping', count: 5 })).status, 200);
  const before = await history();
  const pings = before.items.filter((e) => e.kind === 'ping').map((e) => e.seq);
  t.equal(pings.length, 5);
  t.ok(
    before.items.some((e) => e.kind === 'world_generated'),
    'world_generated is kept',
  );

  const unknown = await as('ares', 'no_such_command', MB_ARGS);
  t.equal(unknown.status, 404);
  const seq = b.bridge.stats().events.seq;
  t.equal(seq, before.items.at(-1)!.seq, 'a 404 with 1 MB args adds no event');

  // 120 refusals (twice the 60-event history) of the kinds an agent can make: unknown commands with 1 MB args (404), bad args
  // (400), a broadcast without the permission (403), a tile out of bounds (400 from the game).
  const statuses = new Map<number, number>();
  const refusals = [
    () => as('ares', 'no_such_command', MB_ARGS),
    () => as('ares', 'emit_events', { kind: 'ping', count: 'many', blob: 'y'.repeat(10_000) }),
    () => as('ares', 'send_message', { to: '*', content: 'all hail ares' }),
    () => as('ares', 'fail_in_game', { code: 'OUT_OF_BOUNDS' }),
  ];
  await flood(120, 4, async (i) => {
    const answer = await refusals[i % refusals.length]!();
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  });
  t.same(
    [...statuses.entries()].sort(),
    [
      [400, 60],
      [403, 30],
      [404, 30],
    ],
    'every one refused',
  );
  t.equal(b.bridge.stats().events.seq, seq, 'not one event for 120 refusals');

  const after = await history();
  t.notOk('gap' in after, 'resuming from 0: no gap');
  t.equal(after.oldest_seq, 1, 'the oldest event is still kept');
  t.same(
    after.items.filter((e) => e.kind === 'ping').map((e) => e.seq),
    pings,
    'the world events are all still there',
  );
  t.notOk(
    after.items.some((e) => e.kind === 'command' && e.agent === 'ares'),
    'no record of any refusal',
  );

  // Counted in the metrics and written to the request log all the same.
  const metrics = await (await b.fetch('/metrics', { headers: { authorization: `Bearer ${secret('zeus')}` } })).text();
  const counted = Number(/^gcb_requests_total\{endpoint="\/cmd",command="",code="UNKNOWN_COMMAND"\} (\d+)$/m.exec(metrics)?.[1]);
  t.ok(counted >= 31, `gcb_requests_total counts the 404s (${counted})`);
  const logged = () => b.logs.filter((line) => line.path === '/cmd' && line.agent === 'ares' && [400, 403, 404].includes(line.status as number)).length;
  await until(() => logged() >= 121, 10_000, 'the request log lines');
  t.ok(logged() >= 121, 'every refusal has its request log line');
});

t.test('what ran or failed in running keeps its record: a 200 with 1 MB args, summarised within 2 KiB; a 422', async (t) => {
  const head = b.bridge.stats().events.seq;
  const carried = await as('athena', 'carry', MB_ARGS);
  t.equal(carried.status, 200);
  const rejected = await as('athena', 'fail_in_game', { code: 'GAME_REJECTED' });
  t.equal(rejected.status, 422);
  const records = (await history(head)).items.filter((e) => e.kind === 'command');
  t.equal(records.length, 2, 'one record each');
  const [big, failed] = records;
  t.match(big, { agent: 'athena', name: 'carry', ok: true, status: 200, truncated: true, args_bytes: Buffer.byteLength(JSON.stringify(MB_ARGS)) });
  t.equal(big!.args.blob, 'x'.repeat(127) + '…');
  t.equal(big!.args.nested.list.length, 32);
  const bytes = Buffer.byteLength(JSON.stringify({ args: big!.args, truncated: big!.truncated, args_bytes: big!.args_bytes }));
  t.ok(bytes <= 2048, `the summary is ${bytes} bytes`);
  t.ok(Buffer.byteLength(JSON.stringify(big)) < 2400, 'the whole record stays small');
  t.match(failed, { agent: 'athena', name: 'fail_in_game', ok: false, code: 'GAME_REJECTED', status: 422, args: { code: 'GAME_REJECTED' } });
  t.notOk('truncated' in failed!, 'nothing cut, no flag');
});

t.test("an observer's view of send_message's record carries no content", async (t) => {
  const content = 'the bridge at dawn: bring every archer, tell no one';
  const head = b.bridge.stats().events.seq;
  const stream = await openSse(b.bridge.port, `/events?since=${head}&kinds=command`, { token: secret('owl') });
  t.equal(stream.status, 200);
  t.equal((await as('athena', 'send_message', { to: 'ares', content, kind: 'plan' })).status, 200);
  const seen = await as('owl', 'recv_events', { since_seq: head, kinds: ['command', 'message'] });
  const records = seen.body.result.items as Array<Record<string, any>>;
  t.same(
    records.map((e) => e.kind),
    ['command'],
    'the observer gets the record, not the message',
  );
  t.match(records[0], { agent: 'athena', name: 'send_message', ok: true, args: { to: 'ares', kind: 'plan', content_bytes: Buffer.byteLength(content) } });
  t.notOk('content' in records[0]!.args, 'no content in the args');
  t.notOk(JSON.stringify(seen.body).includes('archer'), 'no word of it anywhere in the answer');
  const frame = await stream.waitFor((f) => f.event === 'command', 10_000, "the record on the observer's stream");
  t.notOk(frame.data!.includes('archer'), 'nor on the stream');
  t.match(JSON.parse(frame.data!), { name: 'send_message', args: { content_bytes: Buffer.byteLength(content) } });
  stream.close();
  const mine = await as('athena', 'recv_events', { since_seq: head, kinds: ['command'] });
  t.notOk(JSON.stringify(mine.body).includes('archer'), 'the sender’s own view of the record has no content either');
});

t.test('whoami and recv_events leave no record (gcb mcp asks whoami every second); a command beside them does', async (t) => {
  const head = b.bridge.stats().events.seq;
  for (let i = 0; i < 3; i++) {
    t.equal((await as('athena', 'whoami')).status, 200);
    t.equal((await as('athena', 'recv_events', { since_seq: head })).status, 200);
  }
  t.equal(b.bridge.stats().events.seq, head, 'no event for six answers of 200');
  t.equal((await as('athena', 'carry', {})).status, 200);
  t.same(
    (await history(head)).items.map((e) => `${e.kind}:${e.name}`),
    ['command:carry'],
    'only the other command is recorded',
  );
});
