import t from 'tap';
import { agent, startAgents, token } from './helpers.ts';

t.setTimeout(180_000);

const ids = <T extends { kingdom_id: number }>(items: T[]) => [...new Set(items.map((i) => i.kingdom_id))].sort((a, b) => a - b);

t.test('health, whoami and the legacy token in multi-agent mode', async (t) => {
  const { b, as } = await startAgents(t, { scenario: 'coop', agents: [agent('a', 'faction_player', { kingdom_claim: 'auto:0' }), agent('b', 'observer')] });
  const health = await (await b.fetch('/health', { headers: { authorization: `Bearer ${token('a')}` } })).json();
  t.match(health, { multi_agent: true, scenario: 'coop', agent_count: 2 });
  t.equal((await b.fetch('/health')).status, 401, 'the bridge.toml token answers 401 in multi-agent mode');
  t.equal((await b.fetch('/health', { headers: { 'x-wb-token': token('b') } })).status, 200, 'X-WB-Token works for agents too');
  const who = (await as('a', 'whoami')).body.result;
  t.match(who, { agent_id: 'a', role: 'faction_player', scenario: 'coop', partial_intel: false });
  t.type(who.claimed_kingdom_id, 'number', 'auto:0 resolved against the world');
  t.same(who.permissions, ['read_own_faction', 'action_faction', 'send_message', 'recv_message', 'advance_time']);
  const info = (await as('b', 'session_info')).body.result;
  t.match(info, { scenario: 'coop', turn_based: false, legacy_mode: false, agent_count: 2, current_turn: null });
  t.match(info.agents.find((x: { id: string }) => x.id === 'a').last_seen_utc, /^\d{4}-/);
  t.notMatch(b.logText(), token('a'), 'agent tokens never reach the logs');
});

t.test('fog: partial_intel hides other kingdoms from list_cities and query_actors; read_all and the flag lift it', async (t) => {
  const agents = [agent('pawn', 'faction_player', { kingdom_claim: 'auto:0' }), agent('owl', 'observer'), agent('zeus', 'god')];
  const fogged = await startAgents(t, { scenario: 'pvp', agents });
  const claim = (await fogged.as('pawn', 'whoami')).body.result.claimed_kingdom_id;
  const allCities = (await fogged.as('zeus', 'list_cities')).body.result.items;
  t.ok(ids(allCities).length > 1, 'the world has several kingdoms with cities');
  const pawnCities = (await fogged.as('pawn', 'list_cities')).body.result.items;
  t.same(ids(pawnCities), [claim], 'a faction player sees only its own cities');
  const pawnActors = (await fogged.as('pawn', 'query_actors', { limit: 5000 })).body.result.items;
  t.ok(pawnActors.length > 0);
  t.same(ids(pawnActors), [claim], 'and only its own actors');
  t.ok(ids((await fogged.as('owl', 'list_cities')).body.result.items).length > 1, 'read_all sees through the fog');
  t.ok((await fogged.as('pawn', 'list_kingdoms')).body.result.items.length > 1, 'list_kingdoms is never filtered');
  t.equal((await fogged.as('pawn', 'screenshot', { max_dimension: 32 })).status, 403, 'screenshot needs read_all');

  const clear = await startAgents(t, { scenario: 'pvp', partial_intel: false, agents });
  t.ok(ids((await clear.as('pawn', 'list_cities')).body.result.items).length > 1, 'partial_intel false: no fog');
});

t.test('claims follow the world: auto:N is resolved again after generate_world', async (t) => {
  const { as } = await startAgents(t, { agents: [agent('pawn', 'faction_player', { kingdom_claim: 'auto:1' }), agent('zeus', 'god')] });
  const order = async () => (await as('zeus', 'list_kingdoms')).body.result.items.filter((k: { wild: boolean }) => !k.wild).map((k: { id: number }) => k.id);
  const before = (await as('pawn', 'whoami')).body.result.claimed_kingdom_id;
  t.equal(before, (await order())[1]);
  t.equal((await as('zeus', 'generate_world', { zone_x: 2, zone_y: 2, seed: 99 })).status, 200);
  const after = (await as('pawn', 'whoami')).body.result.claimed_kingdom_id;
  const kingdoms = await order();
  t.equal(after, kingdoms[1] ?? null, `resolved against the new world (${JSON.stringify(kingdoms)})`);
});
