// spawn: land creatures never stand on water; partial failures are counted; names are deterministic.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { DEFAULT, findTile, openLand, tileIdAt, WATER } from './helpers.ts';

game.init(DEFAULT);
const snap = () => game.snapshotWorld() as SandboxSnapshot;

interface Thrown {
  code?: string;
  message?: string;
  exception?: { type: string; stack_top: string };
}

function thrown(f: () => unknown): Thrown | null {
  try {
    f();
    return null;
  } catch (err) {
    return err as Thrown;
  }
}

t.test('a land creature on water is GAME_REJECTED with an exception, and nothing is spawned', (t) => {
  const water = findTile(snap(), (id) => WATER.has(id));
  const before = game.getWorldState().population_alive;
  for (const entity of ['human', 'sheep', 'wolf', 'zombie']) {
    const caught = thrown(() => game.spawn(entity, water.x, water.y, 5, false));
    t.equal(caught?.code, 'GAME_REJECTED', entity);
    t.match(caught?.message, /land creature/);
    t.equal(caught?.exception?.type, 'SpawnRefused');
    t.match(caught?.exception?.stack_top, /src\/game/);
  }
  t.equal(game.getWorldState().population_alive, before);
  t.end();
});

t.test('fish refuse land; dragons fly anywhere', (t) => {
  const land = openLand(snap(), 1);
  t.throws(() => game.spawn('fish', land.x, land.y, 1, false), { code: 'GAME_REJECTED', message: /lives in water/ });
  const water = findTile(snap(), (id) => WATER.has(id));
  t.equal(game.spawn('fish', water.x, water.y, 3, true).spawned > 0, true);
  t.equal(game.spawn('dragon', water.x, water.y, 1, true).spawned, 1);
  t.end();
});

t.test('on a coast, the creatures that would land in the water are counted as failed', (t) => {
  const s = snap();
  const coast = findTile(s, (id, x, y) => {
    if (WATER.has(id)) return false;
    let water = 0;
    for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) if (WATER.has(tileIdAt(s, x + dx, y + dy))) water++;
    return water > 15 && water < 35;
  });
  const out = game.spawn('sheep', coast.x, coast.y, 100, true);
  t.equal(out.spawned + out.failed, 100);
  t.ok(out.failed > 0, `${out.failed} failed`);
  t.ok(out.spawned > 1, `${out.spawned} spawned`);
  t.equal(out.names.length, out.spawned);
  t.end();
});

t.test('names, adults, kingdoms', (t) => {
  const land = openLand(snap(), 2);
  const out = game.spawn('elf', land.x, land.y, 6, true);
  t.equal(out.spawned, 6);
  for (const name of out.names) t.match(name, /^[A-Z][a-z]+$/);
  const here = game.queryActors({ alive: true, limit: 100, offset: 0, race: 'elf', in_rect: { x: land.x - 3, y: land.y - 3, w: 7, h: 7 } });
  t.ok(here.matched >= 6);
  t.ok(
    here.items.every((row) => row.kingdom_id === null),
    'elves on free land are nomads until they found a kingdom',
  );
  const wolves = game.spawn('wolf', land.x, land.y, 2, false);
  const wild = game.queryActors({ alive: true, limit: 100, offset: 0, race: 'wolf', in_rect: { x: land.x - 3, y: land.y - 3, w: 7, h: 7 } });
  t.ok(wild.items.length >= wolves.spawned);
  const wildKingdom = game.listKingdoms(true).find((k) => k.wild && k.race === 'wolf');
  t.ok(wildKingdom);
  t.ok(
    wild.items.every((row) => row.kingdom_id === wildKingdom!.id),
    'animals join their wild kingdom',
  );
  t.end();
});

t.test("a civilised creature spawned on its race's city land joins that city", (t) => {
  const city = game.listCities()[0]!;
  const kingdom = game.listKingdoms(false).find((k) => k.id === city.kingdom_id)!;
  const s = snap();
  const rec = s.cities.find((c) => c.id === city.id)!;
  const before = game.listCities().find((c) => c.id === city.id)!.unit_count;
  const out = game.spawn(kingdom.race, rec.x, rec.y, 1, true);
  t.equal(out.spawned, 1);
  t.equal(game.listCities().find((c) => c.id === city.id)!.unit_count, before + 1);
  t.end();
});

t.test('same world, same spawn: same names', (t) => {
  game.init(DEFAULT);
  const land = openLand(snap(), 2);
  const first = game.spawn('human', land.x, land.y, 5, true).names;
  game.init(DEFAULT);
  t.same(game.spawn('human', land.x, land.y, 5, true).names, first);
  t.end();
});

t.test('unknown ids and off-map coordinates', (t) => {
  t.throws(() => game.spawn('humen', 5, 5, 1, false), { code: 'UNKNOWN_ASSET', didYouMean: ['human'] });
  t.throws(() => game.spawn('human', 256, 5, 1, false), { code: 'OUT_OF_BOUNDS' });
  t.throws(() => game.spawn('human', 5, -1, 1, false), { code: 'OUT_OF_BOUNDS' });
  t.end();
});
