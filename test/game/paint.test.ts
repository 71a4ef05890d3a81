// paint_tile changes tiles and tops over a brush, and reports what it could not paint.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { DEFAULT, findTile, openLand, WATER } from './helpers.ts';

game.init(DEFAULT);
const snap = () => game.snapshotWorld() as SandboxSnapshot;

t.test('one tile', (t) => {
  const p = openLand(snap(), 1);
  t.same(game.paintTile(p.x, p.y, 'snow', null, 0), { painted: 1, skipped: 0 });
  const tile = game.getTile(p.x, p.y);
  t.equal(tile.tile_id, 'snow');
  t.equal(game.getTile(p.x + 1, p.y).tile_id === 'snow', false, 'radius 0 is one tile');
  t.end();
});

t.test('a brush paints a disc; land painted as water takes a water height', (t) => {
  const p = openLand(snap(), 4);
  const out = game.paintTile(p.x, p.y, 'shallow_water', null, 3);
  t.ok(out.painted >= 29, `${out.painted} painted`);
  t.equal(out.skipped, 0);
  for (const [dx, dy] of [
    [0, 0],
    [3, 0],
    [0, -3],
    [2, 2],
  ] as const)
    t.equal(game.getTile(p.x + dx, p.y + dy).tile_id, 'shallow_water');
  t.ok(game.getTile(p.x, p.y).height < 100);
  t.end();
});

t.test('tops: set on land, skipped on water; a tile and a top at once', (t) => {
  const water = findTile(snap(), (id) => WATER.has(id));
  t.same(game.paintTile(water.x, water.y, null, 'tree_oak', 0), { painted: 0, skipped: 1 });
  t.equal(game.getTile(water.x, water.y).top_id, null);
  const p = openLand(snap(), 1);
  game.paintTile(p.x, p.y, 'grass', 'flowers', 1);
  t.same([game.getTile(p.x, p.y).tile_id, game.getTile(p.x, p.y).top_id], ['grass', 'flowers']);
  // Water drowns a top.
  game.paintTile(p.x, p.y, 'deep_ocean', null, 0);
  t.equal(game.getTile(p.x, p.y).top_id, null);
  t.end();
});

t.test('a brush hanging off the map counts the missing tiles as skipped', (t) => {
  const out = game.paintTile(0, 0, 'sand', null, 2);
  t.same(out, { painted: 8, skipped: 13 }, 'a radius-2 brush covers 21 tiles, 8 of them on the map at the corner');
  t.equal(game.getTile(0, 0).tile_id, 'sand');
  t.end();
});

t.test('a house painted on city land counts as one of its buildings', (t) => {
  const city = game.listCities()[0]!;
  const rec = snap().cities.find((c) => c.id === city.id)!;
  const s = snap();
  const spot = findTile(
    s,
    (id, x, y, i) => s.tiles.owner[i] === city.id && s.tiles.top[i] === 0 && !WATER.has(id) && Math.abs(x - rec.x) < 6 && Math.abs(y - rec.y) < 6,
  );
  game.paintTile(spot.x, spot.y, null, 'house', 0);
  t.equal(game.listCities().find((c) => c.id === city.id)!.building_count, city.building_count + 1);
  game.paintTile(spot.x, spot.y, null, 'rock', 0);
  t.equal(game.listCities().find((c) => c.id === city.id)!.building_count, city.building_count);
  t.end();
});

t.test('errors', (t) => {
  t.throws(() => game.paintTile(1, 1, null, null, 0), { code: 'BAD_ARGS' });
  t.throws(() => game.paintTile(1, 1, 'gras', null, 0), { code: 'UNKNOWN_ASSET', didYouMean: ['grass'] });
  t.throws(() => game.paintTile(1, 1, null, 'tree_oaks', 0), { code: 'UNKNOWN_ASSET' });
  t.throws(() => game.paintTile(1, 1, 'grass', null, 0) && game.paintTile(1, 1, null, 'grass', 0), { code: 'UNKNOWN_ASSET' }, 'tile ids are not top ids');
  t.throws(() => game.paintTile(1000, 1, 'grass', null, 0), { code: 'OUT_OF_BOUNDS' });
  t.end();
});

t.test('top "none" clears the top layer, on land and on water', (t) => {
  const p = openLand(snap(), 2);
  game.paintTile(p.x, p.y, null, 'tree_oak', 1);
  t.equal(game.getTile(p.x, p.y).top_id, 'tree_oak');
  const cleared = game.paintTile(p.x, p.y, null, 'none', 1);
  t.equal(cleared.skipped, 0, 'nothing skipped');
  t.ok(cleared.painted > 1, 'the whole disc');
  for (const [dx, dy] of [
    [0, 0],
    [1, 0],
    [0, 1],
  ] as const)
    t.equal(game.getTile(p.x + dx, p.y + dy).top_id, null);
  t.equal(game.listTopTiles()[0]!.id, 'none', 'listed with the top tiles');
  t.end();
});
