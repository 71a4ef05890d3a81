// observeGrid: the map folded into a fixed grid, whatever its size; the planes and counts agree with
// the other reads; a viewer without `others` gets nothing of the other kingdoms.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import { DEFAULT, SMALL } from './helpers.ts';

const sum = (a: ArrayLike<number>, from = 0, to = a.length) => {
  let total = 0;
  for (let i = from; i < to; i++) total += a[i]!;
  return total;
};

t.test('the same shapes on a 128 and a 256 tile map, for any grid', async (t) => {
  for (const size of [SMALL, DEFAULT]) {
    game.init(size);
    const kingdom = game.kingdomOrder()[0]!;
    for (const cells of [4, 16, 64]) {
      const view = game.observeGrid({ cells, kingdomId: kingdom, others: true, anchors: 3 });
      t.equal(view.tiles.length, cells * cells, `${size.zonesX} zones, grid ${cells}: tiles`);
      t.equal(view.actors.length, 3 * cells * cells, 'actors: three planes');
      t.equal(view.territory.length, cells * cells, 'territory');
      t.equal(sum(view.actors), game.getWorldState().population_alive, 'every live actor is in one plane');
      t.ok(view.anchors.length <= 3);
    }
  }
});

t.test('planes and counts match list_kingdoms, list_cities and query_actors', async (t) => {
  game.init(DEFAULT);
  const cells = 16;
  const area = cells * cells;
  const [first, second] = game.listKingdoms(false);
  const view = game.observeGrid({ cells, kingdomId: first!.id, others: true, anchors: 4 });
  t.equal(sum(view.actors, 0, area), first!.units_count, 'own plane: the kingdom’s units');
  t.same(view.counts.population, first!.units_count);
  t.equal(view.counts.cities, first!.cities_count);
  t.equal(view.counts.alive, true);
  const cities = game.listCities(first!.id);
  t.equal(view.counts.buildings, sum(cities.map((c) => c.building_count)));
  t.equal(sum(view.territory), view.counts.territory, 'territory per cell adds up to the count');
  t.ok(view.counts.territory > 0, 'a capital owns land');
  const capital = citiesAt(first!.id)[0]!;
  t.same(view.anchors[0], { x: capital.x, y: capital.y }, 'the first city is the first anchor');
  t.equal(view.anchors.length, Math.min(4, first!.cities_count));
  const others = game.queryActors({ alive: true, limit: 1, offset: 0, kingdom_id: second!.id }).matched;
  t.ok(sum(view.actors, area, 2 * area) >= others, 'other kingdoms are in the second plane');
  const wildIds = game.listKingdoms(true).filter((k) => k.wild);
  const wildCount = sum(wildIds.map((k) => k.units_count));
  t.ok(sum(view.actors, 2 * area) >= wildCount && wildCount > 0, 'animals are in the wild plane');
  // The commonest tile of a cell is one of the catalogue's.
  t.ok(view.tiles.every((type) => type < game.listTiles().length));

  const fogged = game.observeGrid({ cells, kingdomId: first!.id, others: false, anchors: 4 });
  t.equal(sum(fogged.actors, area), 0, 'without others: the other planes are empty');
  t.same(fogged.counts, view.counts);

  const nobody = game.observeGrid({ cells, kingdomId: null, others: false, anchors: 4 });
  t.same(nobody.counts, { alive: false, population: 0, cities: 0, buildings: 0, territory: 0 });
  t.same(nobody.anchors, []);
  t.same(nobody.tiles, view.tiles, 'tiles are seen by everyone');
});

t.test('a read: observing changes nothing', async (t) => {
  game.init(SMALL);
  const before = game.stateHash();
  game.observeGrid({ cells: 32, kingdomId: game.kingdomOrder()[0]!, others: true, anchors: 16 });
  t.equal(game.stateHash(), before);
});

function citiesAt(kingdomId: number): Array<{ x: number; y: number }> {
  const snapshot = game.snapshotWorld() as unknown as { cities: Array<{ id: number; kingdomId: number; x: number; y: number; alive: boolean }> };
  return snapshot.cities.filter((c) => c.alive && c.kingdomId === kingdomId).sort((a, b) => a.id - b.id);
}

t.test('tiles and territory follow the world between two observations (what observe keeps is never stale)', async (t) => {
  game.init(SMALL);
  const cells = 16;
  const [first, second] = game.listKingdoms(false);
  const capital = citiesAt(first!.id)[0]!;
  const look = (kingdomId: number) => game.observeGrid({ cells, kingdomId, others: false, anchors: 4 });
  const before = look(first!.id);
  const otherBefore = look(second!.id);
  const cell = Math.floor((capital.y * cells) / 128) * cells + Math.floor((capital.x * cells) / 128);
  t.ok(before.territory[cell]! > 0, 'the capital’s cell holds its land');

  // Water over the capital's cell: the commonest tile there changes, and water takes the land.
  game.paintTile(capital.x, capital.y, 'deep_ocean', null, 6);
  const after = look(first!.id);
  t.equal(game.listTiles()[after.tiles[cell]!]!.id, 'deep_ocean', 'the cell’s class is the painted tile');
  t.ok(after.territory[cell]! < before.territory[cell]!, 'the drowned land left the territory');
  t.equal(after.counts.territory, sum(after.territory), 'the count follows the cells');
  t.not(after.counts.territory, before.counts.territory);
  // Another viewer of the same world sees the same new tiles, and its own land as before.
  const other = look(second!.id);
  t.same(other.tiles, after.tiles);
  t.same(other.territory, otherBefore.territory);

  // What an answer holds is the caller's: changing it changes no later answer.
  const seen = look(first!.id);
  const deepOcean = seen.tiles[cell]!;
  seen.tiles.fill(deepOcean + 1);
  seen.territory.fill(0);
  const again = look(first!.id);
  t.equal(game.listTiles()[again.tiles[cell]!]!.id, 'deep_ocean');
  t.equal(sum(again.territory), again.counts.territory);
  t.ok(again.counts.territory > 0);

  // A new world of the same size: nothing of the last one shows.
  game.init({ ...SMALL, seed: SMALL.seed + 1 });
  const fresh = game.listKingdoms(false)[0]!;
  const newView = look(fresh.id);
  t.equal(sum(newView.territory), newView.counts.territory);
  t.not(newView.tiles.join(), again.tiles.join());
});
