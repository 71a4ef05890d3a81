// decisions §4: with partial_intel and without read_all, list_cities and query_actors show the
// claimed kingdom only; a request for another kingdom matches nothing (no error: reads are scoped,
// FACTION_SCOPE_VIOLATION is never raised). Unit test on the frame steps with a fake game, since a
// partial-intel session needs agents.json.
import t from 'tap';
import listCities from '../../src/commands/read/list-cities.ts';
import queryActors from '../../src/commands/read/query-actors.ts';
import { PERMISSIONS, ROLE_MASKS } from '../../src/auth/permissions.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { ActorQuery, CityInfo } from '../../src/shared/game-module.ts';

const city = (id: number, kingdom: number): CityInfo => ({
  id,
  name: `c${id}`,
  kingdom_id: kingdom,
  kingdom_name: `k${kingdom}`,
  leader_name: null,
  building_count: 1,
  unit_count: 1,
});
const CITIES = [city(1, 1), city(2, 1), city(3, 2)];

const queries: ActorQuery[] = [];
const game = {
  listCities: (kingdomId?: number) => CITIES.filter((c) => kingdomId === undefined || c.kingdom_id === kingdomId),
  queryActors: (q: ActorQuery) => {
    queries.push(q);
    return { items: [], matched: q.kingdom_id === undefined ? 9 : 3 };
  },
};

function caller(role: keyof typeof ROLE_MASKS, claim: number | null, partialIntel: boolean): CallerContext {
  return {
    agentId: role,
    agentIndex: 0,
    role,
    permissions: ROLE_MASKS[role],
    claimedKingdomId: claim,
    scenario: 'pvp',
    partialIntel,
    turnBased: false,
    legacyMode: false,
  };
}

function run(def: typeof listCities | typeof queryActors, args: object, who: CallerContext): any {
  return (def.frame as (env: unknown) => unknown)({ game, args, caller: who } as unknown);
}

t.test('list_cities', async (t) => {
  t.equal(run(listCities, {}, caller('faction_player', 1, true)).count, 2, 'a scoped player sees its own kingdom');
  t.same(run(listCities, { kingdom_id: 2 }, caller('faction_player', 1, true)), { items: [], count: 0 }, 'another kingdom: nothing, no error');
  t.equal(run(listCities, { kingdom_id: 1 }, caller('faction_player', 1, true)).count, 2);
  t.equal(run(listCities, {}, caller('faction_player', null, true)).count, 0, 'no claim: nothing');
  t.equal(run(listCities, {}, caller('faction_player', 1, false)).count, 3, 'without partial_intel: everything');
  t.equal(run(listCities, {}, caller('observer', 1, true)).count, 3, 'read_all sees everything');
  t.ok((ROLE_MASKS.observer & PERMISSIONS.read_all) !== 0);
  t.equal(run(listCities, { kingdom_id: 2 }, caller('god', null, true)).count, 1, 'god: its own filter only');
});

t.test('query_actors', async (t) => {
  queries.length = 0;
  const scoped = run(queryActors, { race: 'human' }, caller('faction_player', 2, true));
  t.match(queries.at(-1), { kingdom_id: 2, race: 'human', alive: true, limit: 500, offset: 0 }, 'the claim becomes the filter');
  t.equal(scoped.matched, 3);
  const other = run(queryActors, { kingdom_id: 1, limit: 7, offset: 3 }, caller('faction_player', 2, true));
  t.same(other, { items: [], matched: 0, returned: 0, offset: 3, limit: 7, has_more: false });
  run(queryActors, {}, caller('narrator', 2, true));
  t.equal(queries.at(-1)?.kingdom_id, undefined, 'read_all: no filter added');
});
