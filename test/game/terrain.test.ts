// Generation: sizes from 2 to 16 zones, tiles and heights in range, every seed has land and water.
import t from 'tap';
import { MAX_ZONES, MIN_ZONES, TILES, TOPS, ZONE_TILES } from '../../src/game/assets.ts';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';

function census(s: SandboxSnapshot): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of s.tiles.type) {
    const id = TILES[type]!.id;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

t.test(`the smallest world: ${MIN_ZONES}x${MIN_ZONES} zones`, (t) => {
  const s = game.generateWorld({ zonesX: MIN_ZONES, zonesY: MIN_ZONES, seed: 42 }) as SandboxSnapshot;
  t.equal(s.width, MIN_ZONES * ZONE_TILES);
  t.equal(s.height, MIN_ZONES * ZONE_TILES);
  t.equal(s.tiles.type.length, 128 * 128);
  const counts = census(s);
  const water = (counts.get('deep_ocean') ?? 0) + (counts.get('shallow_water') ?? 0);
  t.ok(water > 0.3 * 128 * 128 && water < 0.6 * 128 * 128, `water ${water}`);
  t.ok(counts.size >= 6, `${counts.size} tile types`);
  t.ok(
    s.kingdoms.some((k) => !k.wild),
    'even a small world has a kingdom',
  );
  t.end();
});

t.test(`the largest world: ${MAX_ZONES}x${MAX_ZONES} zones`, (t) => {
  const s = game.generateWorld({ zonesX: MAX_ZONES, zonesY: MAX_ZONES, seed: 1234 }) as SandboxSnapshot;
  t.equal(s.width, 1024);
  t.equal(s.height, 1024);
  const counts = census(s);
  for (const id of ['deep_ocean', 'shallow_water', 'sand', 'soil_low', 'soil_high', 'grass', 'forest', 'hills', 'mountains', 'snow']) {
    t.ok((counts.get(id) ?? 0) > 0, `has ${id}`);
  }
  for (const type of s.tiles.type) if (type >= TILES.length) t.fail('tile out of range');
  let maxTop = 0;
  let minHeight = 255;
  let maxHeight = 0;
  for (let i = 0; i < s.tiles.top.length; i++) {
    maxTop = Math.max(maxTop, s.tiles.top[i]!);
    minHeight = Math.min(minHeight, s.tiles.elevation[i]!);
    maxHeight = Math.max(maxHeight, s.tiles.elevation[i]!);
  }
  t.ok(maxTop <= TOPS.length);
  t.ok(minHeight < 40 && maxHeight > 200, `heights ${minHeight}..${maxHeight}`);
  t.ok(s.kingdoms.filter((k) => !k.wild).length >= 8, 'a big world has many kingdoms');
  t.ok(s.hwm > 1000, 'and many creatures');
  t.end();
});

t.test('the border of every world is ocean, and land lies higher than water', (t) => {
  for (const seed of [1, 2, 3]) {
    const s = game.generateWorld({ zonesX: 3, zonesY: 2, seed }) as SandboxSnapshot;
    let dryEdge = 0;
    for (let x = 0; x < s.width; x++) {
      if (!TILES[s.tiles.type[x]!]!.water || !TILES[s.tiles.type[(s.height - 1) * s.width + x]!]!.water) dryEdge++;
    }
    for (let y = 0; y < s.height; y++) {
      if (!TILES[s.tiles.type[y * s.width]!]!.water || !TILES[s.tiles.type[y * s.width + s.width - 1]!]!.water) dryEdge++;
    }
    t.equal(dryEdge, 0, `seed ${seed}: no land on the edge`);
    let waterMax = 0;
    let landMin = 255;
    s.tiles.type.forEach((type, i) => {
      if (TILES[type]!.water) waterMax = Math.max(waterMax, s.tiles.elevation[i]!);
      else landMin = Math.min(landMin, s.tiles.elevation[i]!);
    });
    t.ok(waterMax < landMin, `seed ${seed}`);
  }
  t.end();
});

t.test('top tile ids are distinct from tile ids; decoration sits on land', (t) => {
  const tileIds = new Set(game.listTiles().map((x) => x.id));
  for (const top of game.listTopTiles()) t.notOk(tileIds.has(top.id), top.id);
  const s = game.generateWorld({ zonesX: 4, zonesY: 4, seed: 9 }) as SandboxSnapshot;
  let onWater = 0;
  let decorated = 0;
  s.tiles.top.forEach((top, i) => {
    if (top === 0) return;
    decorated++;
    if (TILES[s.tiles.type[i]!]!.water) onWater++;
  });
  t.equal(onWater, 0);
  t.ok(decorated > 1000);
  t.end();
});

t.test('bad parameters are BAD_ARGS', (t) => {
  for (const params of [
    { zonesX: 1, zonesY: 4, seed: 1 },
    { zonesX: 4, zonesY: 17, seed: 1 },
    { zonesX: 2.5, zonesY: 4, seed: 1 },
    { zonesX: 4, zonesY: 4, seed: 0.5 },
  ]) {
    t.throws(() => game.generateWorld(params), { code: 'BAD_ARGS' }, JSON.stringify(params));
  }
  t.end();
});
