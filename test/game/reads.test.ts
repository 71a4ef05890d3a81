// Reads: get_tile lists who stands there; query_actors filters and pages; counts add up.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { DEFAULT, openLand, runTicks } from './helpers.ts';

game.init(DEFAULT);

t.test('get_tile: the tile, its top, its height and the actors on it', (t) => {
  const land = openLand(game.snapshotWorld() as SandboxSnapshot, 2);
  game.paintTile(land.x, land.y, 'grass', 'flowers', 0);
  const names = game.spawn('dwarf', land.x, land.y, 1, true).names;
  game.spawn('sheep', land.x, land.y, 1, true);
  const tile = game.getTile(land.x, land.y);
  t.equal(tile.x, land.x);
  t.equal(tile.tile_id, 'grass');
  t.equal(tile.top_id, 'flowers');
  t.ok(tile.height >= 100 && tile.height <= 255);
  t.equal(tile.actor_count, 2);
  t.equal(tile.actors.length, 2);
  const dwarf = tile.actors.find((a) => a.asset_id === 'dwarf')!;
  t.equal(dwarf.name, names[0]);
  t.equal(dwarf.kingdom_id, null);
  t.type(tile.actors.find((a) => a.asset_id === 'sheep')!.kingdom_id, 'number');
  t.throws(() => game.getTile(-1, 0), { code: 'OUT_OF_BOUNDS' });
  t.throws(() => game.getTile(0, 256), { code: 'OUT_OF_BOUNDS' });
  t.end();
});

t.test('query_actors: filters, matched counts every match, pages do not overlap', (t) => {
  const all = game.queryActors({ alive: true, limit: 5000, offset: 0 });
  t.equal(all.matched, game.getWorldState().population_alive);
  t.equal(all.items.length, all.matched);
  const humans = game.queryActors({ race: 'human', alive: true, limit: 5000, offset: 0 });
  t.ok(humans.matched > 0 && humans.items.every((row) => row.asset_id === 'human'));
  const kingdom = game.listKingdoms(false)[0]!;
  const members = game.queryActors({ kingdom_id: kingdom.id, alive: true, limit: 5000, offset: 0 });
  t.equal(members.matched, kingdom.units_count, 'units_count counts the same actors');
  t.ok(members.items.every((row) => row.kingdom_id === kingdom.id));
  const rect = { x: 100, y: 80, w: 60, h: 50 };
  const inside = game.queryActors({ in_rect: rect, alive: true, limit: 5000, offset: 0 });
  t.ok(inside.items.every((r) => r.x >= 100 && r.x < 160 && r.y >= 80 && r.y < 130));
  t.equal(game.queryActors({ race: 'nobody', alive: true, limit: 10, offset: 0 }).matched, 0);
  const page1 = game.queryActors({ alive: true, limit: 7, offset: 0 });
  const page2 = game.queryActors({ alive: true, limit: 7, offset: 7 });
  t.equal(page1.items.length, 7);
  t.equal(page1.matched, all.matched);
  t.same([...page1.items, ...page2.items], all.items.slice(0, 14));
  t.same(game.queryActors({ alive: true, limit: 10, offset: all.matched }).items, []);
  t.end();
});

t.test('query_actors lists the oldest first, so pages hold still while the world runs', (t) => {
  const before = game.queryActors({ alive: true, limit: 50, offset: 0 }).items.map((r) => r.name);
  runTicks(game, 300); // actors are re-laid every 128 ticks; the order must not care
  const after = game.queryActors({ alive: true, limit: 5000, offset: 0 }).items.map((r) => r.name);
  const survivors = after.filter((name) => before.includes(name));
  t.same(
    survivors,
    before.filter((name) => survivors.includes(name)),
    'same relative order',
  );
  t.ok(survivors.length > 25);
  t.end();
});

t.test('alive:false returns the recent dead, newest first', (t) => {
  const land = openLand(game.snapshotWorld() as SandboxSnapshot, 3);
  const names = game.spawn('rabbit', land.x, land.y, 3, true).names;
  game.invokePower('bomb', land.x, land.y, null);
  const dead = game.queryActors({ alive: false, limit: 10, offset: 0 });
  t.ok(dead.matched >= 3);
  t.same(new Set(dead.items.slice(0, 3).map((r) => r.name)), new Set(names));
  t.ok(dead.items.slice(0, 3).every((r) => r.asset_id === 'rabbit' && Math.abs(r.x - land.x) <= 2));
  const rabbits = game.queryActors({ alive: false, race: 'rabbit', limit: 500, offset: 0 });
  t.ok(rabbits.items.every((r) => r.asset_id === 'rabbit'));
  t.end();
});

t.test('get_world_state counts agree with the lists', (t) => {
  runTicks(game, 300);
  const state = game.getWorldState();
  t.equal(state.kingdoms_alive, game.listKingdoms(false).length);
  t.equal(state.cities_alive, game.listCities().length);
  t.ok(state.population_lifetime >= state.population_alive);
  t.equal(state.tick, game.currentTick());
  t.equal(state.paused, false);
  t.same(game.worldSize(), { width: 256, height: 256 });
  t.end();
});

t.test('catalogue lists', (t) => {
  const actors = game.listActors();
  for (const id of ['human', 'elf', 'orc', 'dwarf', 'sheep', 'wolf', 'bear', 'chicken', 'rabbit', 'cat', 'dragon', 'zombie']) {
    t.ok(
      actors.some((a) => a.id === id),
      id,
    );
  }
  t.ok(actors.every((a) => typeof a.race === 'string' && a.race.length > 0));
  t.equal(actors.find((a) => a.id === 'orc')!.race, 'orc');
  const tiles = game.listTiles().map((x) => x.id);
  for (const id of ['deep_ocean', 'shallow_water', 'sand', 'soil_low', 'soil_high', 'grass', 'forest', 'hills', 'mountains', 'snow', 'lava'])
    t.ok(tiles.includes(id), id);
  t.ok(game.listTopTiles().length >= 8);
  t.end();
});
