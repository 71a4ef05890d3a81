// Each family of god powers changes the world the way it says.
import t from 'tap';
import { POWERS } from '../../src/game/assets.ts';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { DEFAULT, findTile, openLand, runTicks, tileIdAt, WATER } from './helpers.ts';

game.init(DEFAULT);
const snap = () => game.snapshotWorld() as SandboxSnapshot;

function countIn(x: number, y: number, r: number): number {
  return game.queryActors({ alive: true, limit: 1, offset: 0, in_rect: { x: x - r, y: y - r, w: 2 * r + 1, h: 2 * r + 1 } }).matched;
}

/** Fresh open grass around a point, cleared of tops and actors by painting. */
function field(r: number): { x: number; y: number } {
  const p = openLand(snap(), r + 1);
  game.paintTile(p.x, p.y, 'grass', null, r + 1);
  return p;
}

/** Spawns and returns the new actors' uids (uids count up, so they are the ones past the old counter). */
function spawnTracked(entity: string, x: number, y: number, count: number): number[] {
  const from = snap().counters.nextUid;
  game.spawn(entity, x, y, count, true);
  const to = snap().counters.nextUid;
  return Array.from({ length: to - from }, (_, n) => from + n);
}

/** Hit points of the live actor with this uid, or null when it is dead. */
function hpOf(uid: number): number | null {
  const s = snap();
  for (let i = 0; i < s.hwm; i++) if (s.actors.alive[i] === 1 && s.actors.uid[i] === uid) return s.actors.hp[i]!;
  return null;
}

t.test('catalogue flags: brushes support a radius, laws are toggles, nothing is both', (t) => {
  const powers = game.listPowers();
  t.equal(powers.length, POWERS.length);
  for (const p of powers) t.notOk(p.supports_radius && p.is_toggle, `${p.id} is not both`);
  const byId = new Map(powers.map((p) => [p.id, p]));
  for (const id of ['fire', 'rain', 'blessing', 'plague', 'earthquake', 'water_bucket', 'lava_bucket'])
    t.equal(byId.get(id)?.supports_radius, true, `${id} has a brush`);
  for (const id of ['lightning', 'bomb', 'meteorite', 'atomic_bomb', 'spawn_human', 'rain_toggle'])
    t.equal(byId.get(id)?.supports_radius, false, `${id} has no brush`);
  for (const id of ['rain_toggle', 'infinite_lifespan', 'world_peace']) t.equal(byId.get(id)?.is_toggle, true, `${id} is a toggle`);
  for (const race of ['human', 'elf', 'orc', 'dwarf', 'sheep', 'wolf', 'dragon', 'zombie']) t.ok(byId.has(`spawn_${race}`), `spawn_${race}`);
  t.throws(() => game.invokePower('lightnin', 1, 1, null), { code: 'UNKNOWN_ASSET', didYouMean: ['lightning'] });
  t.throws(() => game.invokePower('lightning', -1, 1, null), { code: 'OUT_OF_BOUNDS' });
  t.end();
});

t.test('spawn powers add one creature where it can live, and refuse where it cannot', (t) => {
  const land = field(1);
  const water = findTile(snap(), (id) => WATER.has(id));
  const before = game.getWorldState().population_alive;
  t.equal(game.invokePower('spawn_human', land.x, land.y, null), true);
  t.equal(game.invokePower('spawn_sheep', land.x, land.y, null), true);
  t.equal(game.invokePower('spawn_fish', water.x, water.y, null), true);
  t.equal(game.invokePower('spawn_dragon', water.x, water.y, null), true, 'dragons fly');
  t.equal(game.invokePower('spawn_human', water.x, water.y, null), false, 'no humans on water');
  t.equal(game.invokePower('spawn_fish', land.x, land.y, null), false, 'no fish on land');
  t.equal(game.getWorldState().population_alive, before + 4);
  const here = game
    .getTile(land.x, land.y)
    .actors.map((a) => a.asset_id)
    .sort();
  t.same(here, ['human', 'sheep']);
  t.end();
});

t.test('lightning kills people under it and sets the ground alight', (t) => {
  const p = field(3);
  game.spawn('human', p.x, p.y, 1, true);
  game.spawn('human', p.x, p.y, 1, true);
  const deadBefore = game.queryActors({ alive: false, limit: 1, offset: 0 }).matched;
  t.equal(game.invokePower('lightning', p.x, p.y, null), true);
  t.equal(game.getTile(p.x, p.y).actor_count, 0);
  t.ok(game.queryActors({ alive: false, limit: 1, offset: 0 }).matched >= deadBefore + 2);
  const s = snap();
  t.ok(s.tiles.fire[p.y * s.width + p.x]! > 0, 'the struck tile burns');
  t.end();
});

t.test('fire burns grass to ash and hurts who stands in it', (t) => {
  const p = field(3);
  const [orc] = spawnTracked('orc', p.x, p.y, 1);
  game.invokePower('fire', p.x, p.y, 2);
  const s = snap();
  let burning = 0;
  for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) if (s.tiles.fire[(p.y + dy) * s.width + p.x + dx]! > 0) burning++;
  t.ok(burning >= 13, `${burning} tiles burn`);
  t.ok((hpOf(orc!) ?? 0) < 130, 'the orc is hurt');
  runTicks(game, 120);
  t.equal(tileIdAt(snap(), p.x, p.y), 'ash');
  t.end();
});

t.test('bombs kill and flatten: houses fall to ruins', (t) => {
  const p = field(5);
  game.paintTile(p.x + 1, p.y, null, 'house', 0);
  game.spawn('human', p.x, p.y, 5, true);
  game.spawn('bear', p.x, p.y, 2, true);
  t.ok(countIn(p.x, p.y, 3) >= 7);
  game.invokePower('bomb', p.x, p.y, null);
  t.equal(countIn(p.x, p.y, 3), 0);
  t.equal(game.getTile(p.x + 1, p.y).top_id, 'ruins');
  t.equal(game.getTile(p.x, p.y).tile_id, 'ash');
  t.end();
});

t.test('a meteorite leaves a lava crater; an atomic bomb clears a wide area', (t) => {
  const p = field(6);
  game.spawn('dwarf', p.x, p.y, 3, true);
  game.invokePower('meteorite', p.x, p.y, null);
  t.equal(game.getTile(p.x, p.y).tile_id, 'lava');
  t.equal(countIn(p.x, p.y, 4), 0);
  const q = field(12);
  game.spawn('sheep', q.x + 8, q.y, 6, true);
  game.invokePower('atomic_bomb', q.x, q.y, null);
  t.equal(countIn(q.x + 8, q.y, 2), 0);
  t.end();
});

t.test('earthquakes crumble mountains and knock houses down', (t) => {
  const p = field(6);
  game.paintTile(p.x, p.y, 'mountains', null, 6);
  game.paintTile(p.x, p.y, null, 'house', 0);
  const before = game.stateHash();
  for (let n = 0; n < 6; n++) game.invokePower('earthquake', p.x, p.y, 6);
  t.not(game.stateHash(), before);
  const s = snap();
  let changed = 0;
  for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) if (tileIdAt(s, p.x + dx, p.y + dy) !== 'mountains') changed++;
  t.ok(changed > 5, `${changed} mountain tiles crumbled`);
  t.end();
});

t.test('rain puts fires out, cools lava and greens ash', (t) => {
  const p = field(4);
  game.invokePower('fire', p.x, p.y, 3);
  game.paintTile(p.x + 4, p.y, 'ash', null, 0);
  game.paintTile(p.x - 4, p.y, 'lava', null, 0);
  game.invokePower('rain', p.x, p.y, 5);
  runTicks(game, 1);
  const s = snap();
  for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) if (s.tiles.fire[(p.y + dy) * s.width + p.x + dx]! !== 0) t.fail('still burning');
  t.equal(tileIdAt(s, p.x + 4, p.y), 'soil_low');
  for (let n = 0; n < 6 && tileIdAt(snap(), p.x - 4, p.y) === 'lava'; n++) game.invokePower('rain', p.x - 4, p.y, 0);
  t.equal(tileIdAt(snap(), p.x - 4, p.y), 'hills');
  t.end();
});

t.test('plague sickens and kills the living; blessing cures and heals', (t) => {
  const p = field(3);
  const sick = spawnTracked('human', p.x, p.y, 4);
  game.invokePower('plague', p.x, p.y, 1);
  let s = snap();
  let infected = 0;
  for (let i = 0; i < s.hwm; i++) if (s.actors.alive[i] === 1 && s.actors.plague[i]! > 0) infected++;
  t.ok(infected >= 4);
  runTicks(game, 200);
  const hurt = sick.map(hpOf).filter((hp): hp is number => hp !== null);
  t.ok(
    hurt.every((hp) => hp < 100),
    'the sick lose health',
  );
  game.invokePower('blessing', p.x, p.y, 30);
  s = snap();
  for (const uid of sick) {
    const hp = hpOf(uid);
    if (hp !== null) t.equal(hp, 100, `actor ${uid} healed`);
  }
  let still = 0;
  for (let i = 0; i < s.hwm; i++) if (s.actors.alive[i] === 1 && s.actors.plague[i]! > 0) still++;
  const others = game.queryActors({ alive: true, limit: 1, offset: 0, in_rect: { x: p.x - 30, y: p.y - 30, w: 61, h: 61 } }).matched;
  t.ok(still < infected || others === 0, 'blessing cured the plague');
  // Unblessed, the plague runs its course: a fresh group dies of it.
  const q = field(2);
  const elves = spawnTracked('elf', q.x, q.y, 3);
  game.invokePower('plague', q.x, q.y, 1);
  runTicks(game, 700);
  t.same(elves.map(hpOf), [null, null, null], 'all three died');
  t.end();
});

t.test('terrain brushes reshape the map', (t) => {
  const p = field(8);
  game.invokePower('water_bucket', p.x, p.y, 1);
  t.equal(game.getTile(p.x, p.y).tile_id, 'shallow_water');
  game.invokePower('raise_land', p.x, p.y, 0);
  t.equal(game.getTile(p.x, p.y).tile_id, 'sand');
  game.invokePower('lower_land', p.x, p.y, 0);
  game.invokePower('lower_land', p.x, p.y, 0);
  t.equal(game.getTile(p.x, p.y).tile_id, 'deep_ocean');
  game.invokePower('lava_bucket', p.x + 5, p.y, 0);
  t.equal(game.getTile(p.x + 5, p.y).tile_id, 'lava');
  game.paintTile(p.x - 5, p.y, 'soil_low', null, 1);
  game.invokePower('fertilizer', p.x - 5, p.y, 1);
  t.equal(game.getTile(p.x - 5, p.y).tile_id, 'grass');
  game.invokePower('plant_forest', p.x - 5, p.y, 1);
  const tile = game.getTile(p.x - 5, p.y);
  t.equal(tile.tile_id, 'forest');
  t.match(tile.top_id, /^tree_/);
  t.end();
});

t.test('toggles flip a world law on each call', (t) => {
  const active = (id: string) => game.listPowers().find((p) => p.id === id)!.active;
  for (const id of ['rain_toggle', 'infinite_lifespan', 'world_peace']) {
    t.equal(active(id), false, `${id} starts off`);
    t.equal(game.invokePower(id, 0, 0, null), true);
    t.equal(active(id), true, `${id} on`);
    game.invokePower(id, 5, 5, null);
    t.equal(active(id), false, `${id} off again`);
  }
  // infinite_lifespan: nobody dies of age while it is on.
  game.invokePower('infinite_lifespan', 0, 0, null);
  const s = snap();
  t.equal(s.laws.infinite_lifespan, true);
  game.invokePower('infinite_lifespan', 0, 0, null);
  t.end();
});

t.test('world_peace ends every war', async (t) => {
  const { buildWorld } = await import('../../src/game/generate.ts');
  const { declareWar } = await import('../../src/game/kingdoms.ts');
  const { toSnapshot } = await import('../../src/game/snapshot.ts');
  const w = buildWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  declareWar(w.kingdoms[0]!, w.kingdoms[1]!);
  game.installWorld(toSnapshot(w));
  t.same(snap().kingdoms[0]!.wars, [2]);
  game.invokePower('world_peace', 0, 0, null);
  t.same(snap().kingdoms[0]!.wars, []);
  t.same(snap().kingdoms[1]!.wars, []);
});
