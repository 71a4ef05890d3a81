// The tick systems on a private world: movement, age, hunger and hunting, breeding, fire, drowning,
// zombies, and the bookkeeping (grid, compaction, census) that keeps it fast and exact.
import t from 'tap';
import { A, ACTOR_INDEX, T, TOP } from '../../src/game/assets.ts';
import { createActor } from '../../src/game/actors.ts';
import { buildWorld } from '../../src/game/generate.ts';
import { census, placeActor, recountAlive } from '../../src/game/kingdoms.ts';
import { compactActors, rebuildGrid, tick, COMPACT_EVERY } from '../../src/game/simulation.ts';
import { forDisc, ignite, setTileType, setTop, type World } from '../../src/game/world.ts';

const id = (name: string) => ACTOR_INDEX.get(name)!;

/** A 2x2-zone world with a big empty grass square in the middle (its own creatures removed). */
function arena(): World {
  const w = buildWorld({ zonesX: 2, zonesY: 2, seed: 7 });
  for (let i = 0; i < w.actorEnd; i++) if (w.a.alive[i] === 1) w.a.alive[i] = 0;
  w.population = 0;
  w.freeCount = 0;
  w.actorEnd = 0;
  for (const c of w.cities) c.alive = false;
  for (const k of w.kingdoms) k.alive = k.wild;
  recountAlive(w);
  forDisc(w, 64, 64, 40, (i) => {
    setTileType(w, i, T.grass);
    setTop(w, i, 0);
    w.owner[i] = 0;
  });
  census(w);
  return w;
}

function alive(w: World, asset: number): number {
  let n = 0;
  for (let i = 0; i < w.actorEnd; i++) if (w.a.alive[i] === 1 && w.a.asset[i] === asset) n++;
  return n;
}

/** Indices move (compaction re-lays the arrays every COMPACT_EVERY ticks): follow actors by uid. */
function indexOf(w: World, uid: number): number {
  for (let i = 0; i < w.actorEnd; i++) if (w.a.alive[i] === 1 && w.a.uid[i] === uid) return i;
  return -1;
}

const uidOf = (w: World, actor: number) => w.a.uid[actor]!;

function run(w: World, ticks: number): void {
  for (let n = 0; n < ticks; n++) tick(w);
}

t.test('creatures move, and stay on land', (t) => {
  const w = arena();
  const uids = [0, 1, 2, 3, 4].map(() => uidOf(w, placeActor(w, id('cow'), 64.5, 64.5, true)));
  run(w, 200);
  const moved = uids.map((u) => indexOf(w, u)).filter((s) => s >= 0 && (Math.abs(w.a.x[s]! - 64.5) > 1 || Math.abs(w.a.y[s]! - 64.5) > 1));
  t.ok(moved.length >= 3, `${moved.length} of 5 moved`);
  for (let i = 0; i < w.actorEnd; i++) {
    if (w.a.alive[i] !== 1) continue;
    t.equal(w.tileType[Math.floor(w.a.y[i]!) * w.width + Math.floor(w.a.x[i]!)] === T.grass, true);
  }
  t.end();
});

t.test('old age kills, unless the infinite_lifespan law holds', (t) => {
  const w = arena();
  const old = createActor(w, id('sheep'), 60.5, 60.5, true, 0, 0);
  w.a.maxAge[old] = w.a.age[old]! + 20;
  const oldUid = uidOf(w, old);
  run(w, 40);
  t.equal(indexOf(w, oldUid), -1, 'died of age');
  w.laws.infinite_lifespan = true;
  const ageless = createActor(w, id('sheep'), 60.5, 60.5, true, 0, 0);
  w.a.maxAge[ageless] = w.a.age[ageless]! + 20;
  const agelessUid = uidOf(w, ageless);
  run(w, 40);
  t.ok(indexOf(w, agelessUid) >= 0, 'lives on');
  t.end();
});

t.test('hungry wolves hunt sheep; sheep breed', (t) => {
  const w = arena();
  for (let n = 0; n < 6; n++) placeActor(w, id('sheep'), 64.5 + n * 0.3, 64.5, true);
  for (let n = 0; n < 2; n++) w.a.hunger[placeActor(w, id('wolf'), 65.5, 65.5, true)] = 120;
  const killedBefore = w.dead.total;
  run(w, 300);
  t.ok(w.dead.total > killedBefore, 'someone died');
  const sheepDied = Array.from({ length: Math.min(w.dead.total, 1024) }, (_, n) => w.dead.asset[n]).filter((a) => a === id('sheep')).length;
  t.ok(sheepDied >= 1, `${sheepDied} sheep eaten`);
  const herd = arena();
  for (let n = 0; n < 4; n++) placeActor(herd, id('rabbit'), 50.5 + n * 6, 64.5, true);
  run(herd, 1500);
  t.ok(alive(herd, id('rabbit')) > 4, `${alive(herd, id('rabbit'))} rabbits`);
  t.end();
});

t.test('fire spreads over grass, burns out to ash, and houses burn to ruins', (t) => {
  const w = arena();
  const centre = 64 * w.width + 64;
  setTop(w, centre + 1, TOP.house);
  ignite(w, centre, 30);
  ignite(w, centre + 1, 30);
  run(w, 20);
  t.ok(w.fireCount > 2, `${w.fireCount} fires`);
  run(w, 400);
  t.equal(w.tileType[centre], T.ash);
  t.equal(w.topType[centre + 1], TOP.ruins);
  let ash = 0;
  forDisc(w, 64, 64, 10, (i) => {
    if (w.tileType[i] === T.ash || w.tileType[i] === T.soilLow) ash++;
  });
  t.ok(ash > 10, `${ash} tiles burnt`);
  t.end();
});

t.test('land creatures drown in water; fish choke on land', (t) => {
  const w = arena();
  const human = uidOf(w, createActor(w, A.human, 64.5, 64.5, true, 0, 0));
  const fish = uidOf(w, createActor(w, A.fish, 80.5, 64.5, true, 0, 0));
  forDisc(w, 64, 64, 10, (i) => setTileType(w, i, T.shallow));
  run(w, 200);
  t.equal(indexOf(w, human), -1, 'the human drowned');
  t.equal(indexOf(w, fish), -1, 'the fish choked');
  t.end();
});

t.test('zombies bite: some of the dead rise as zombies', (t) => {
  const w = arena();
  for (let n = 0; n < 12; n++) placeActor(w, id('chicken'), 60.5 + (n % 4), 60.5 + Math.floor(n / 4), true);
  for (let n = 0; n < 4; n++) placeActor(w, A.zombie, 61.5, 61.5, true);
  run(w, 600);
  t.ok(alive(w, A.zombie) > 4 || alive(w, id('chicken')) < 12, 'zombies spread or feed');
  t.end();
});

t.test('grid: every live actor exactly once, in its cell', (t) => {
  const w = buildWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  run(w, 50);
  rebuildGrid(w);
  const total = w.cellStart[w.cellFill.length]!;
  t.equal(total, w.population);
  const seen = new Set<number>();
  for (let c = 0; c < w.cellFill.length; c++) {
    for (let p = w.cellStart[c]!; p < w.cellStart[c + 1]!; p++) {
      const actor = w.cellI32[p * 4 + 2]!;
      seen.add(actor);
      const cell = (Math.floor(w.a.y[actor]!) >> 3) * w.gridW + (Math.floor(w.a.x[actor]!) >> 3);
      if (cell !== c) t.fail(`actor ${actor} in the wrong cell`);
    }
  }
  t.equal(seen.size, w.population);
  t.end();
});

t.test('compaction packs actors in map order and keeps kings and leaders', (t) => {
  const w = buildWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  run(w, COMPACT_EVERY + 40);
  const kings = w.kingdoms.filter((k) => !k.wild && k.kingIndex >= 0).map((k) => [k.id, k.kingUid] as const);
  rebuildGrid(w);
  compactActors(w);
  t.equal(w.actorEnd, w.population, 'no holes');
  t.equal(w.freeCount, 0);
  for (const [kid, uid] of kings) {
    const k = w.kingdoms[kid - 1]!;
    t.equal(w.a.uid[k.kingIndex], uid, `king of ${k.name} followed`);
  }
  for (const c of w.cities) if (c.alive && c.leaderIndex >= 0) t.equal(w.a.uid[c.leaderIndex], c.leaderUid);
  let sorted = true;
  let last = -1;
  for (let i = 0; i < w.actorEnd; i++) {
    const cell = (Math.floor(w.a.y[i]!) >> 3) * w.gridW + (Math.floor(w.a.x[i]!) >> 3);
    if (cell < last) sorted = false;
    last = cell;
  }
  t.ok(sorted, 'indices follow the grid');
  t.end();
});

t.test('the census agrees with a fresh count', (t) => {
  const w = buildWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  run(w, 16 * 20);
  census(w);
  for (const k of w.kingdoms) {
    let n = 0;
    for (let i = 0; i < w.actorEnd; i++) if (w.a.alive[i] === 1 && w.a.kingdom[i] === k.id) n++;
    t.equal(k.units, n, k.name);
  }
  let houses = 0;
  for (let i = 0; i < w.owner.length; i++) if (w.owner[i] !== 0 && w.topType[i] === TOP.house) houses++;
  t.equal(
    w.cities.reduce((sum, c) => sum + c.buildings, 0),
    houses,
    'building counts match the houses on city land',
  );
  t.equal(w.civAlive, w.kingdoms.filter((k) => k.alive && !k.wild).length, 'live kingdom counter');
  t.equal(w.citiesAlive, w.cities.filter((c) => c.alive).length, 'live city counter');
  t.end();
});
