// The result schemas and the GameModule interface describe the same shapes: what a game may leave
// out (kingdoms, cities, heights, top layer, races) is optional in both. The type-level half fails
// `npm run lint` (tsc) when one side changes alone; the run-time half checks, with Ajv, that a game
// leaving those fields out and the sandbox filling them all both fit the schemas served.
import type { Static, TSchema } from '@sinclair/typebox';
import t from 'tap';
import { createAjv } from '../../src/config/ajv.ts';
import getTile from '../../src/commands/read/get-tile.ts';
import getUiState from '../../src/commands/read/get-ui-state.ts';
import getWorldState from '../../src/commands/read/get-world-state.ts';
import listActors from '../../src/commands/discovery/list-actors.ts';
import listCities from '../../src/commands/read/list-cities.ts';
import listKingdoms from '../../src/commands/read/list-kingdoms.ts';
import queryActors from '../../src/commands/read/query-actors.ts';
import * as sandbox from '../../src/game/index.ts';
import type { ActorRow, AssetInfo, CityInfo, KingdomInfo, TileReport, UiState, WorldState } from '../../src/game-api.ts';
import { SMALL } from '../game/helpers.ts';

/** True when each type is assignable to the other: a field optional on one side only makes it false. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Item<S extends TSchema> = Static<S> extends { items: Array<infer I> } ? I : never;

const sameShapes: [
  Same<Static<typeof getWorldState.result>, WorldState>,
  Same<Static<typeof getTile.result>, TileReport>,
  Same<Item<typeof queryActors.result>, ActorRow>,
  Same<Item<typeof listActors.result>, AssetInfo & { race?: string }>,
  Same<Item<typeof listKingdoms.result>, KingdomInfo>,
  Same<Item<typeof listCities.result>, CityInfo>,
  Same<Static<typeof getUiState.result>, UiState>,
] = [true, true, true, true, true, true, true];

const ajv = createAjv({ useDefaults: false });

t.test('a game that leaves out what only the sandbox has fits the result schemas', async (t) => {
  t.equal(sameShapes.length, 7);
  const world: WorldState = { width: 32, height: 32, seed: 1, tick: 5, paused: false, population_alive: 3, population_lifetime: 4 };
  t.ok(ajv.validate(getWorldState.result, world), 'get_world_state without kingdom and city counts');
  const tile: TileReport = { x: 1, y: 2, tile_id: 'grass', actors: [{ name: 'Dolly', asset_id: 'sheep' }], actor_count: 1 };
  t.ok(ajv.validate(getTile.result, tile), 'get_tile without top_id, height and kingdom_id');
  const rows: ActorRow[] = [{ name: 'Dolly', asset_id: 'sheep', x: 1, y: 2 }];
  t.ok(ajv.validate(queryActors.result, { items: rows, matched: 1, returned: 1, offset: 0, limit: 500, has_more: false }), 'query_actors without kingdom_id');
  t.ok(ajv.validate(listActors.result, { items: [{ id: 'sheep' }], count: 1 }), 'list_actors without race');
  // The schemas still say what each field is when it is there.
  t.notOk(ajv.validate(getWorldState.result, { ...world, kingdoms_alive: 'two' }), 'a count present must be an integer');
  t.notOk(ajv.validate(getTile.result, { ...tile, actor_count: undefined }), 'actor_count stays required');
});

t.test('the sandbox fills every field, and fits the same schemas', async (t) => {
  sandbox.init(SMALL);
  const world = sandbox.getWorldState();
  t.ok(ajv.validate(getWorldState.result, world));
  for (const field of ['kingdoms_alive', 'kingdoms_ever_created', 'cities_alive', 'cities_ever_created'] as const) t.type(world[field], 'number', field);
  const tile = sandbox.getTile(5, 5);
  t.ok(ajv.validate(getTile.result, tile));
  t.type(tile.height, 'number');
  t.ok('top_id' in tile, 'top_id is there (null when no top)');
  const actors = sandbox.queryActors({ alive: true, limit: 5, offset: 0 });
  t.ok(actors.items.length > 0);
  t.ok(ajv.validate(queryActors.result, { ...actors, returned: actors.items.length, offset: 0, limit: 5, has_more: true }));
  for (const row of actors.items) t.ok('kingdom_id' in row, `${row.name} has kingdom_id`);
  for (const actor of sandbox.listActors()) t.type(actor.race, 'string', `${actor.id} has a race`);
});
