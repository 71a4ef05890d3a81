// decisions §7: who sees what, over real HTTP in multi-agent mode with partial_intel. Every role
// against every kind a session can produce here (the hub unit test walks the rest): read_all
// holders see everything but other agents' messages; a faction player under fog sees global events
// and its own kingdom's, never another kingdom's; a message reaches its sender and recipients; a
// command record reaches read_all holders and its sender. GET /events and recv_events agree.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { EVENT_COMMANDS, EVENT_GAME, openSse } from './helpers.ts';

const secret = (id: string) => `${id}-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789`;
const AGENTS = [
  { id: 'zeus', role: 'god' },
  { id: 'owl', role: 'observer' },
  { id: 'bard', role: 'narrator' },
  { id: 'athena', role: 'faction_player', kingdom_claim: 'id:1', objectives: [{ id: 'grow', label: 'Grow', kind: 'reach_units', target: 5 }] },
  { id: 'ares', role: 'faction_player', kingdom_claim: 'id:2' },
  { id: 'pan', role: 'faction_player' },
] as const;

const dir = tempDir('gcb-events-agents-');
writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(48)}"\nmax_event_streams = 4\n`);
writeFileSync(
  join(dir, 'agents.json'),
  JSON.stringify({
    scenario: 'pvp',
    partial_intel: true,
    turn_based: true,
    turn_order: ['athena', 'ares'],
    agents: AGENTS.map((a) => ({ ...a, token: secret(a.id) })),
  }),
);
// Objectives are judged every 100 ms here (1 s by default).
const b = await startTestBridge(t, { configDir: dir, game: EVENT_GAME, commandModules: [EVENT_COMMANDS], timings: { objectivePollMs: 100 } });
const as = (id: string, name: string, args?: unknown) => b.cmd(name, args, { headers: { authorization: `Bearer ${secret(id)}` } });

t.test('every role against every kind', async (t) => {
  // One of each: a global event, one about kingdom 1, one about kingdom 2, one about both.
  await as('zeus', 'emit_events', { kind: 'ping' });
  await as('zeus', 'emit_events', { kind: 'skirmish', kingdom_ids: [1] });
  await as('zeus', 'emit_events', { kind: 'big', kingdom_ids: [2] });
  await as('zeus', 'emit_events', { kind: 'skirmish', kingdom_ids: [1, 2], pad_bytes: 8 });
  t.equal((await as('athena', 'send_message', { to: 'ares', content: 'truce?' })).status, 200);
  t.equal((await as('bard', 'send_message', { to: '*', content: 'hear ye' })).status, 200);
  t.equal((await as('athena', 'turn_advance')).status, 200);
  t.equal((await as('owl', 'get_ui_state')).status, 200);
  // athena's objective (5 units in kingdom 1) is pending; kingdom 1 reaching 5 units makes it done.
  // The watch's baseline: its first look must see the objective pending. Each look is one game
  // action (the kingdoms) and nothing else is in flight now, so two more actions mean a whole look
  // ran after the requests above (a fixed sleep could end before it on a loaded machine).
  const actions = b.bridge.stats().frames.actions;
  await until(() => b.bridge.stats().frames.actions >= actions + 2, 30_000, "the objective watch's baseline");
  t.equal((await as('zeus', 'set_units', { count: 5 })).status, 200);
  const changed = await as('zeus', 'recv_events', { since_seq: 0, kinds: ['objective_changed'], wait_ms: 10_000 });
  t.match(changed.body.result.items, [
    { kind: 'objective_changed', agent_id: 'athena', objective_id: 'grow', status: 'done', previous: 'pending', progress: 5, kingdom_ids: [1] },
  ]);

  const seen: Record<string, Array<Record<string, any>>> = {};
  for (const { id } of AGENTS) {
    const answer = await as(id, 'recv_events', { since_seq: 0, max: 1000 });
    t.equal(answer.status, 200, `${id} may call recv_events`);
    seen[id] = answer.body.result.items;
  }
  const has = (id: string, match: (e: Record<string, any>) => boolean) => seen[id]!.some(match);
  const readAll = ['zeus', 'owl', 'bard'];
  const factions = ['athena', 'ares', 'pan'];
  const claim: Record<string, number | null> = { athena: 1, ares: 2, pan: null };

  // Global events: everyone.
  for (const { id } of AGENTS) {
    t.ok(
      has(id, (e) => e.kind === 'world_generated'),
      `${id} sees world_generated`,
    );
    t.ok(
      has(id, (e) => e.kind === 'ping'),
      `${id} sees a global game event`,
    );
    t.ok(
      has(id, (e) => e.kind === 'turn_changed' && e.previous === 'athena' && e.next === 'ares'),
      `${id} sees turn_changed`,
    );
  }
  for (const id of ['zeus', 'owl', 'bard', 'athena'])
    t.ok(
      has(id, (e) => e.kind === 'objective_changed'),
      `${id} sees athena's objective_changed`,
    );
  for (const id of ['ares', 'pan'])
    t.notOk(
      has(id, (e) => e.kind === 'objective_changed'),
      `${id} does not: it names kingdom 1`,
    );
  // Kingdom events: read_all holders all; a faction player its own kingdom's only (fog).
  for (const id of readAll) {
    t.ok(
      has(id, (e) => e.kind === 'skirmish' && e.kingdom_ids.length === 1 && e.fogged === undefined),
      `${id} sees kingdom 1's event`,
    );
    t.ok(
      has(id, (e) => e.kind === 'big'),
      `${id} sees kingdom 2's event`,
    );
  }
  t.ok(
    has('athena', (e) => e.kind === 'skirmish' && e.kingdom_ids.length === 1 && e.fogged === undefined),
    'athena sees her kingdom’s event',
  );
  t.notOk(
    has('athena', (e) => e.kind === 'big'),
    'athena does not see kingdom 2’s event',
  );
  t.ok(
    has('ares', (e) => e.kind === 'big'),
    'ares sees his kingdom’s event',
  );
  t.notOk(
    has('ares', (e) => e.kind === 'skirmish' && e.fogged === undefined),
    'ares does not see kingdom 1’s event',
  );
  // An event naming both: read_all holders get it whole; each faction player its fog form, which
  // names its own kingdom alone and cuts the fields the game declares (the event game: pad).
  for (const id of readAll)
    t.ok(
      has(id, (e) => e.kind === 'skirmish' && e.kingdom_ids.length === 2 && e.pad === 'pppppppp' && e.fogged === undefined),
      `${id} sees the event naming both, whole`,
    );
  for (const id of ['athena', 'ares']) {
    const fogged = seen[id]!.find((e) => e.kind === 'skirmish' && e.fogged !== undefined);
    t.match(fogged, { kingdom_ids: [claim[id]], fogged: ['pad'], i: 0 }, `${id} sees the event naming both in its fog form`);
    t.notOk(fogged && 'pad' in fogged, `${id} does not get the field the game keeps from fog`);
  }
  t.notOk(
    has('pan', (e) => e.kingdom_ids.length > 0),
    'a faction player without a claim sees global events only',
  );
  for (const id of factions) {
    const own = claim[id];
    t.ok(
      seen[id]!.every((e) => e.kingdom_ids.length === 0 || (own !== null && e.kingdom_ids.includes(own))),
      `${id} never gets another kingdom's event`,
    );
  }
  // Messages: sender and recipients only, read_all or not.
  for (const { id } of AGENTS) {
    const expected = id === 'athena' || id === 'ares';
    t.equal(
      has(id, (e) => e.kind === 'message' && e.content === 'truce?'),
      expected,
      `${id} ${expected ? 'sees' : 'does not see'} athena's message to ares`,
    );
    t.equal(
      has(id, (e) => e.kind === 'message' && e.content === 'hear ye'),
      true,
      `${id} sees the broadcast`,
    );
  }
  t.match(
    seen.ares!.find((e) => e.kind === 'message'),
    { from: 'athena', to: 'ares', message_kind: 'text', broadcast: false, bus_seq: Number, kingdom_ids: [] },
  );
  // Command records: read_all holders and the agent that sent it.
  for (const { id } of AGENTS) {
    const expected = readAll.includes(id) || id === 'athena';
    t.equal(
      has(id, (e) => e.kind === 'command' && e.agent === 'athena' && e.name === 'send_message'),
      expected,
      `${id} ${expected ? 'sees' : 'does not see'} athena's command record`,
    );
  }
  t.notOk(
    has('athena', (e) => e.kind === 'command' && e.agent !== 'athena'),
    "a faction player sees no one else's commands",
  );
  t.match(
    seen.zeus!.find((e) => e.kind === 'command' && e.name === 'get_ui_state'),
    { agent: 'owl', args: {}, ok: true, code: null, status: 200, ms: Number },
  );
  t.notOk(JSON.stringify(seen).includes(secret('athena')), 'no token in any event');

  // GET /events applies the same rule: athena's stream from 0 holds what recv_events gave her.
  const stream = await openSse(b.bridge.port, '/events?since=0', { token: secret('athena') });
  const last = seen.athena!.at(-1)!.seq;
  await stream.waitFor((f) => Number(f.id) === last, 10_000, 'athena’s backlog');
  t.same(
    stream
      .events()
      .filter((e) => e.seq <= last)
      .map((e) => e.seq),
    seen.athena!.map((e) => e.seq),
    'the stream and recv_events agree',
  );
  stream.close();
});

t.test('one credential holds at most half of max_event_streams; others still get in', async (t) => {
  await until(() => b.bridge.stats().events.streams === 0, 5000, 'earlier streams to go');
  const mine = [await openSse(b.bridge.port, '/events', { token: secret('athena') }), await openSse(b.bridge.port, '/events', { token: secret('athena') })];
  for (const stream of mine) t.equal(stream.status, 200);
  const third = await openSse(b.bridge.port, '/events', { token: secret('athena') });
  await third.ended;
  t.equal(third.status, 503, 'a third stream of one credential (half of 4 is 2)');
  t.equal(third.headers['retry-after'], '1');
  t.match(JSON.parse(third.body).error, { code: 'BUSY', message: /athena/ });
  const waiting = await as('athena', 'recv_events', { since_seq: b.bridge.stats().events.seq + 1000, wait_ms: 500 });
  t.equal(waiting.status, 503, 'a waiting recv_events counts toward the same share');
  const other = await openSse(b.bridge.port, '/events', { token: secret('ares') });
  t.equal(other.status, 200, 'another agent still gets in');
  for (const stream of [...mine, other]) stream.close();
});
