// Direct unit cases for the session's smaller reads: the message bus's eviction counts and unknown
// inboxes, objectives judged without a kingdom or by claim, the legacy session's flags, recv's
// default cursor. Fast, since `npm run mutate -- session` runs this file for every mutant.
import t from 'tap';
import pino from 'pino';
import { parseAgents, type ObjectiveSpec } from '../../src/config/agents.ts';
import { MessageBus } from '../../src/session/bus.ts';
import { evaluateObjectives } from '../../src/session/objectives.ts';
import { callSession } from '../../src/session/pool-calls.ts';
import { Session } from '../../src/session/session.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import type { KingdomInfo } from '../../src/shared/game-module.ts';

const log = pino({ enabled: false });
const TOK = (id: string) => `token-for-${id}-0123456789-ABCDEFGHJK`;
const player = (id: string, extra: Record<string, unknown> = {}) => ({ id, token: TOK(id), role: 'faction_player', ...extra });
const kingdom = (id: number, units: number, cities: number): KingdomInfo => ({
  id,
  name: `k${id}`,
  race: 'human',
  king_name: null,
  capital_id: null,
  cities_count: cities,
  units_count: units,
  wild: false,
});

t.test("a full inbox evicts the biggest sender's oldest message until the senders are level", async (t) => {
  const bus = new MessageBus(['r', 'a', 'b'], 4);
  for (let i = 1; i <= 4; i++) bus.send('a', ['r'], 'r', 'text', `a${i}`);
  for (let i = 1; i <= 4; i++) bus.send('b', ['r'], 'r', 'text', `b${i}`);
  t.same(
    bus.receive('r', 0, 10).map((m) => m.content),
    ['a3', 'a4', 'b3', 'b4'],
    'a held 4, so a lost two; then b, holding the most, lost its own oldest',
  );
});

t.test('an inbox that does not exist (an agent removed by a reload) reads as empty', async (t) => {
  const bus = new MessageBus(['a']);
  bus.send('a', ['a'], 'a', 'text', 'hi');
  t.same(bus.receive('gone', 0, 10), []);
});

t.test('objectives: claims resolved by the caller, no kingdom at all, no target, an unknown kind', async (t) => {
  const kingdoms = [kingdom(7, 3, 1), kingdom(9, 0, 2)];
  const resolve = (claim: string) => (claim === 'auto:0' ? 7 : null);
  const spec = (s: Record<string, unknown>) => s as unknown as ObjectiveSpec;
  t.match(evaluateObjectives([spec({ id: 'w', kind: 'wipe_kingdom', target: 'auto:0' })], null, kingdoms, resolve), [
    { status: 'pending', progress: 3, target: 'auto:0' },
  ]);
  t.match(
    evaluateObjectives([spec({ id: 'u', kind: 'reach_units', target: 2 }), spec({ id: 'c', kind: 'reach_cities', target: 1 })], null, kingdoms, resolve),
    [
      { status: 'pending', progress: 0 },
      { status: 'pending', progress: 0 },
    ],
    'an agent without a kingdom has 0 of everything',
  );
  t.match(evaluateObjectives([spec({ id: 'u', kind: 'reach_units' })], 9, kingdoms, resolve), [{ status: 'done', progress: 0, target: null }], 'no target: 0');
  t.throws(() => evaluateObjectives([spec({ id: 'x', kind: 'bogus' })], 7, kingdoms, resolve), /unknown objective kind bogus/);
});

t.test("the session judges a wipe_kingdom by the claim's kingdom of the current world", async (t) => {
  const s = Session.multiAgent(
    parseAgents('agents.json', JSON.stringify({ agents: [player('a', { objectives: [{ id: 'w', kind: 'wipe_kingdom', target: 'auto:1' }] })] })),
    createSharedState().control,
    log,
  );
  s.resolveClaims([9, 7]);
  const answer = callSession(s, 'objectives', { kingdoms: [kingdom(7, 5, 1), kingdom(9, 0, 0)] }, s.callerOf('a')!) as { value: any };
  t.match(answer.value.agents[0].objectives, [{ id: 'w', status: 'pending', progress: 5 }]);
});

t.test('a legacy session: no agents.json flags, no claims, no objectives', async (t) => {
  const s = Session.legacy('L'.repeat(48), createSharedState().control, log);
  t.equal(s.partialIntel, false);
  t.equal(s.turnBased, false);
  t.equal(s.scenario, 'sandbox');
  t.equal(s.turnHolder, null);
  const god = s.credentials[0]!.caller;
  s.resolveClaims([3, 4]);
  t.equal(god.claimedKingdomId, null);
  const answer = callSession(s, 'objectives', { kingdoms: [kingdom(3, 1, 1)] }, god) as { ok: boolean; value: any };
  t.equal(answer.ok, true);
  t.same(answer.value.agents[0].objectives, []);
});

t.test('partial_intel from agents.json at start', async (t) => {
  const s = Session.multiAgent(
    parseAgents('agents.json', JSON.stringify({ scenario: 'pvp', partial_intel: true, agents: [player('a')] })),
    createSharedState().control,
    log,
  );
  t.equal(s.partialIntel, true);
});

t.test('recv without since_seq on an empty inbox: the cursor is 0', async (t) => {
  const s = Session.multiAgent(parseAgents('agents.json', JSON.stringify({ agents: [player('a'), player('b')] })), createSharedState().control, log);
  t.same(callSession(s, 'recv', {}, s.callerOf('b')!), { ok: true, value: { items: [], count: 0, next_cursor: 0 } });
});

t.test('an auto:N claim before the first world is known resolves to no kingdom', async (t) => {
  const s = Session.multiAgent(
    parseAgents('agents.json', JSON.stringify({ agents: [player('a', { kingdom_claim: 'auto:0' })] })),
    createSharedState().control,
    log,
  );
  t.equal(s.callerOf('a')!.claimedKingdomId, null);
  s.resolveClaims([4]);
  t.equal(s.callerOf('a')!.claimedKingdomId, 4);
});
