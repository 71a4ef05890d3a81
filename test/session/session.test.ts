import t from 'tap';
import pino from 'pino';
import { parseAgents } from '../../src/config/agents.ts';
import type { CommandDef } from '../../src/commands/define.ts';
import { callSession } from '../../src/session/pool-calls.ts';
import { Session } from '../../src/session/session.ts';
import { createSharedState, kTurnHolder } from '../../src/shared/layout.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

const log = pino({ enabled: false });
const TOK = (id: string) => `token-for-${id}-0123456789-ABCDEFGHJK`;
const gated = { name: 'spawn', turnGated: true } as CommandDef;
const read = { name: 'get_tile', turnGated: false } as CommandDef;

function session(spec: Record<string, unknown>) {
  const shared = createSharedState();
  const config = parseAgents('agents.json', JSON.stringify(spec));
  const s = Session.multiAgent(config, shared.control, log);
  const caller = (id: string): CallerContext => s.credentials.find((c) => c.caller.agentId === id)!.caller;
  const call = (name: string, input: unknown, id: string) => callSession(s, name, input, caller(id));
  return { s, shared, caller, call, holder: () => Atomics.load(shared.control, kTurnHolder) };
}

const players = (...ids: string[]) => ids.map((id) => ({ id, token: TOK(id), role: 'faction_player' }));

t.test('turn rotation with two agents', async (t) => {
  const { s, call, caller, holder } = session({ turn_based: true, agents: players('athena', 'ares') });
  t.equal(s.turnHolder, 'athena', 'starts with the first');
  t.equal(holder(), 1, 'mirrored in shared memory as index + 1');
  t.equal(s.checkTurn(gated, caller('athena')), null);
  t.match(s.checkTurn(gated, caller('ares')), { code: 'TURN_NOT_YOURS', message: /it is athena's turn/ });
  t.equal(s.checkTurn(read, caller('ares')), null, 'reads are never gated');
  t.same(await call('turn_advance', {}, 'athena'), { ok: true, value: { previous: 'athena', next: 'ares', forced_by_god: false } });
  t.equal(holder(), 2);
  t.match(await call('turn_advance', {}, 'athena'), { ok: false, code: 'TURN_NOT_YOURS' }, 'only the holder passes');
  t.same(await call('turn_advance', {}, 'ares'), { ok: true, value: { previous: 'ares', next: 'athena', forced_by_god: false } }, 'wraps around');
});

t.test('turn rotation with three agents, god forcing, and an explicit order', async (t) => {
  const { s, call, caller } = session({
    turn_based: true,
    turn_order: ['c', 'a', 'b'],
    agents: [...players('a', 'b', 'c'), { id: 'zeus', token: TOK('zeus'), role: 'god' }],
  });
  t.equal(s.turnHolder, 'c');
  t.equal(s.checkTurn(gated, caller('zeus')), null, 'god bypasses the gate');
  t.same((await call('turn_advance', {}, 'zeus')) as unknown, { ok: true, value: { previous: 'c', next: 'a', forced_by_god: true } });
  t.same((await call('turn_advance', {}, 'a')) as unknown, { ok: true, value: { previous: 'a', next: 'b', forced_by_god: false } });
  t.same((await call('turn_advance', {}, 'b')) as unknown, { ok: true, value: { previous: 'b', next: 'c', forced_by_god: false } });
  t.match(await call('turn_advance', {}, 'a'), { ok: false, code: 'TURN_NOT_YOURS' });
  const info = (await call('info', {}, 'a')) as { ok: true; value: Record<string, unknown> };
  t.same(info.value.turn_order, ['c', 'a', 'b']);
  t.equal(info.value.current_turn, 'c');
});

t.test('turn_advance outside a turn-based session is BAD_ARGS; no turn is mirrored', async (t) => {
  const { call, holder } = session({ agents: players('a', 'b') });
  t.match(await call('turn_advance', {}, 'a'), { ok: false, code: 'BAD_ARGS', message: /not turn-based/ });
  t.equal(holder(), 0);
});

t.test('a holder that acts keeps the turn; one that is only seen loses it after turn_timeout_s', async (t) => {
  const { s, caller } = session({ turn_based: true, turn_timeout_s: 0.15, agents: players('a', 'b') });
  const events: Array<{ kind: string; fields: Record<string, unknown> }> = [];
  s.setEventSink((kind, fields) => void events.push({ kind, fields }));
  s.start();
  t.teardown(() => s.stop());
  // Each 60 ms sleep is armed after the turn timer and runs before it however late both fire, so
  // a's acts always come in time, on a loaded machine too.
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 60));
    s.acted(caller('a'));
  }
  t.equal(s.turnHolder, 'a', 'a holder who keeps acting keeps the turn');
  t.same(events, [], 'it never lost it');
  s.acted(caller('b'));
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 60));
    s.touch(caller('a')); // decisions §11: being seen (any request) no longer keeps a turn
  }
  // The first turn_changed says who lost the turn: b's own 150 ms timer may have passed it back
  // by now if the sleeps ran late (reading the holder would then see a again).
  t.same(
    events[0],
    { kind: 'turn_changed', fields: { previous: 'a', next: 'b', forced_by_god: false } },
    'requests that are not actions, and acts of others, pass it on',
  );
});

t.test('the bus: 1-to-1, broadcast, one bus-wide cursor, non-destructive reads', async (t) => {
  const { call } = session({ agents: [...players('a', 'b'), { id: 'herald', token: TOK('herald'), role: 'narrator' }] });
  t.same(await call('send', { to: 'b', content: 'hi b' }, 'a'), { ok: true, value: { seq: 1, recipients: ['b'], broadcast: false } });
  t.same(await call('send', { to: '*', content: 'hear ye', kind: 'news' }, 'herald'), { ok: true, value: { seq: 2, recipients: ['a', 'b'], broadcast: true } });
  t.same(await call('send', { to: 'a', content: 'hi a' }, 'b'), { ok: true, value: { seq: 3, recipients: ['a'], broadcast: false } });
  const b = (await call('recv', {}, 'b')) as {
    ok: true;
    value: { items: Array<{ seq: number; from: string; to: string; kind: string; content: string; sent_utc: string }>; count: number; next_cursor: number };
  };
  t.same(
    b.value.items.map((m) => [m.seq, m.from, m.to, m.kind, m.content]),
    [
      [1, 'a', 'b', 'text', 'hi b'],
      [2, 'herald', '*', 'news', 'hear ye'],
    ],
  );
  t.match(b.value.items[0]!.sent_utc, /^\d{4}-\d\d-\d\dT/);
  t.equal(b.value.next_cursor, 2);
  const a = (await call('recv', { since_seq: 1 }, 'a')) as typeof b;
  t.same(
    a.value.items.map((m) => m.seq),
    [2, 3],
    'seq > since_seq across broadcasts and direct messages',
  );
  t.equal(a.value.next_cursor, 3);
  const again = (await call('recv', { since_seq: 3 }, 'a')) as typeof b;
  t.same(again.value, { items: [], count: 0, next_cursor: 3 }, 'next_cursor is since_seq when nothing is new');
  t.equal(((await call('recv', {}, 'a')) as typeof b).value.count, 2, 'reading removed nothing');
  t.equal(((await call('recv', {}, 'herald')) as typeof b).value.count, 0, 'a broadcast skips its sender');
  t.equal(((await call('recv', { max: 1 }, 'a')) as typeof b).value.items[0]!.seq, 2, 'max limits, oldest first');
});

t.test('the bus refuses unknown recipients, oversize content and broadcasts without send_broadcast', async (t) => {
  const { call } = session({ agents: players('a', 'b') });
  t.match(await call('send', { to: 'zed', content: 'x' }, 'a'), { ok: false, code: 'BAD_ARGS', message: /unknown recipient 'zed'; known agents: a, b/ });
  t.match(await call('send', { to: 'b', content: 'é'.repeat(2049) }, 'a'), { ok: false, code: 'BAD_ARGS', message: /at most 4096/ });
  t.match(await call('send', { to: '*', content: 'x' }, 'a'), { ok: false, code: 'PERMISSION_DENIED', message: /send_broadcast/ });
});

t.test('inboxes keep the newest 200', async (t) => {
  const { call } = session({ agents: players('a', 'b') });
  for (let i = 0; i < 250; i++) await call('send', { to: 'b', content: `m${i}` }, 'a');
  const b = (await call('recv', { max: 500 }, 'b')) as { ok: true; value: { items: Array<{ seq: number }>; count: number } };
  t.equal(b.value.count, 200);
  t.equal(b.value.items[0]!.seq, 51, 'the oldest 50 were dropped');
  t.equal(b.value.items[199]!.seq, 250);
});

t.test("a full inbox drops the biggest sender's oldest message: a flood evicts itself (decisions §11)", async (t) => {
  const { call } = session({ agents: [...players('a', 'b'), { id: 'ref', token: TOK('ref'), role: 'narrator' }] });
  await call('send', { to: 'b', content: 'the referee speaks' }, 'ref');
  for (let i = 0; i < 300; i++) await call('send', { to: 'b', content: `flood ${i}` }, 'a');
  const b = (await call('recv', { max: 500 }, 'b')) as { ok: true; value: { items: Array<{ seq: number; from: string; content: string }>; count: number } };
  t.equal(b.value.count, 200);
  t.match(b.value.items[0], { seq: 1, from: 'ref', content: 'the referee speaks' }, 'the referee message survives 300 flood messages');
  t.equal(b.value.items[1]!.seq, 302 - 199, "the flood's oldest went");
  t.equal(b.value.items[199]!.seq, 301);
  t.ok(
    b.value.items.every((m, i) => i === 0 || m.seq > b.value.items[i - 1]!.seq),
    'still in seq order',
  );
  const page = (await call('recv', { since_seq: 1, max: 10 }, 'b')) as { ok: true; value: { items: Array<{ seq: number }>; next_cursor: number } };
  t.same(
    page.value.items.map((m) => m.seq),
    Array.from({ length: 10 }, (_, i) => 103 + i),
    'cursor reads go on in seq order, removing nothing',
  );
});

t.test('inbox eviction ties: the tied sender whose oldest message is the oldest loses it', async (t) => {
  const { call } = session({ agents: [...players('a', 'b', 'c'), { id: 'ref', token: TOK('ref'), role: 'narrator' }] });
  await call('send', { to: 'b', content: 'c' }, 'c'); // seq 1
  for (let i = 0; i < 100; i++) await call('send', { to: 'b', content: 'a' }, 'a'); // seq 2..101
  for (let i = 0; i < 99; i++) await call('send', { to: 'b', content: 'c' }, 'c'); // seq 102..200: full, a 100, c 100
  await call('send', { to: 'b', content: 'ref' }, 'ref'); // seq 201: a tie between a and c; c's oldest (1) is older
  const items = ((await call('recv', { max: 500 }, 'b')) as { ok: true; value: { items: Array<{ seq: number; from: string }> } }).value.items;
  t.equal(items.length, 200);
  t.same(
    items.slice(0, 2).map((m) => m.seq),
    [2, 3],
    "c's seq 1 went, a's oldest stayed",
  );
  const counts = items.reduce<Record<string, number>>((acc, m) => ({ ...acc, [m.from]: (acc[m.from] ?? 0) + 1 }), {});
  t.same(counts, { a: 100, c: 99, ref: 1 });
});

t.test('claims: auto:N follows the kingdom order, id:K is fixed', async (t) => {
  const { s, caller } = session({
    agents: [
      { id: 'a', token: TOK('a'), role: 'faction_player', kingdom_claim: 'auto:1' },
      { id: 'b', token: TOK('b'), role: 'faction_player', kingdom_claim: 'id:9' },
      { id: 'c', token: TOK('c'), role: 'observer' },
    ],
  });
  s.resolveClaims([4, 6, 8]);
  t.equal(caller('a').claimedKingdomId, 6);
  t.equal(caller('b').claimedKingdomId, 9);
  t.equal(caller('c').claimedKingdomId, null);
  s.resolveClaims([11]);
  t.equal(caller('a').claimedKingdomId, null, 'no second kingdom in the new world');
  s.resolveClaims([2, 3]);
  t.equal(caller('a').claimedKingdomId, 3, 'resolved again for every new world');
});

t.test('objectives judged against the kingdoms', async (t) => {
  const { s, call } = session({
    scenario: 'pvp',
    agents: [
      {
        id: 'a',
        token: TOK('a'),
        role: 'faction_player',
        kingdom_claim: 'auto:0',
        objectives: [
          { id: 'win', label: 'Outlast b', kind: 'wipe_kingdom', target: 'auto:1' },
          { id: 'live', kind: 'survive' },
          { id: 'grow', kind: 'reach_units', target: 10 },
        ],
      },
      { id: 'b', token: TOK('b'), role: 'faction_player', kingdom_claim: 'auto:1' },
    ],
  });
  s.resolveClaims([1, 2]);
  const kingdoms = [
    { id: 1, name: 'North', race: 'human', king_name: null, capital_id: null, cities_count: 2, units_count: 12, wild: false },
    { id: 2, name: 'South', race: 'orc', king_name: null, capital_id: null, cities_count: 1, units_count: 0, wild: false },
  ];
  const result = (await call('objectives', { kingdoms }, 'a')) as { ok: true; value: any };
  t.equal(result.value.scenario, 'pvp');
  t.same(
    result.value.agents[0].objectives.map((o: { id: string; status: string }) => [o.id, o.status]),
    [
      ['win', 'done'],
      ['live', 'pending'],
      ['grow', 'done'],
    ],
  );
  t.same(result.value.kingdoms, [
    { id: 1, name: 'North', units: 12, cities: 2, wild: false },
    { id: 2, name: 'South', units: 0, cities: 1, wild: false },
  ]);
});

t.test('legacy mode: one synthetic god, the bridge.toml token', async (t) => {
  const shared = createSharedState();
  const s = Session.legacy('L'.repeat(48), shared.control, log);
  t.equal(s.multiAgent, false);
  t.equal(s.agentCount, 1);
  t.match(s.credentials[0]!.caller, { agentId: 'legacy', role: 'god', permissions: 511, legacyMode: true, scenario: 'sandbox' });
  const info = callSession(s, 'info', {}, s.credentials[0]!.caller) as { ok: true; value: Record<string, unknown> };
  t.match(info.value, { scenario: 'sandbox', legacy_mode: true, turn_based: false, agent_count: 1, current_turn: null });
});
