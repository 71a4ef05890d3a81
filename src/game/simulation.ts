// One simulation tick: the spatial grid, then every actor (hazards, ageing, a "think" every
// THINK_EVERY ticks staggered by index, movement), births, fire, regrowth and rain, then the city,
// census and kingdom systems. The hot loop reads typed arrays only and allocates nothing.
import {
  A,
  ACTORS,
  ACTOR_CARNIVORE,
  ACTOR_DAMAGE,
  ACTOR_FIREPROOF,
  ACTOR_GRAZER,
  ACTOR_HABITAT,
  ACTOR_HUNGER_RATE,
  ACTOR_KIND,
  ACTOR_KIND_ANIMAL,
  ACTOR_KIND_CIV,
  ACTOR_KIND_MONSTER,
  ACTOR_PREY_MAX,
  ACTOR_RACE,
  ACTOR_SIZE,
  ACTOR_SPEED,
  HABITAT_AIR,
  HABITAT_LAND,
  HABITAT_WATER,
  T,
  TILE_FOOD,
  TILE_SPEED,
  TILE_WALKABLE,
  TILE_WATER,
  TOP,
  TOP_FOOD,
  TOP_VEGETATION,
} from './assets.ts';
import { createActor, isAdult, killActor, transformActor } from './actors.ts';
import {
  atWar,
  canFoundAt,
  CENSUS_EVERY,
  census,
  citySystem,
  conquerCity,
  DIRS_X,
  DIRS_Y,
  foundCityFor,
  foundKingdom,
  housingCapacity,
  joinCity,
  KINGDOM_EVERY,
  kingdomSystem,
  MAX_CIV_KINGDOMS_ALIVE,
  wildKingdomFor,
} from './kingdoms.ts';
import { reportBirth, reportDeath } from './events.ts';
import { rulesOf } from './rules.ts';
import { chancePerMille, hash32, nextFloat, nextU32 } from './rng.ts';
import {
  ACTOR_FIELD_NAMES,
  allocActorArrays,
  cityOf,
  extinguish,
  FIRE_EXTINGUISHED,
  GRID_SHIFT,
  ignite,
  kingdomOf,
  setTileType,
  setTop,
  type DeathCause,
  type World,
} from './world.ts';

export const THINK_EVERY = 16;
/**
 * The catalogue's per-think figures (hunger, breeding chance and cooldown, damage) are tuned for a
 * think every 8 ticks; this scales them so the per-tick pace does not depend on THINK_EVERY.
 */
const PER_THINK = THINK_EVERY / 8;
/** Ticks between two re-layouts of the actor arrays in map order. */
export const COMPACT_EVERY = 128;
const THINK_MASK = THINK_EVERY - 1;
/** How far an actor notices others (tiles). Half a grid cell, so a scan reads at most 2×2 cells. */
const SENSE = 4;
const SENSE2 = SENSE * SENSE;
/** Melee reach (tiles, squared). */
const REACH2 = 2.25;
/** Neighbours looked at per think: bounds the cost in a crowd. */
const MAX_EXAMINE = 24;
const HUNGRY = 64;
const STARVING = 150;
/** How long the plague lasts in one body (ticks); it costs 1 hp every 4 ticks. */
export const PLAGUE_TICKS = 600;

export function tick(w: World): void {
  rebuildGrid(w);
  if (w.tick % COMPACT_EVERY === 0) compactActors(w);
  actorPass(w);
  flushBirths(w);
  firePass(w);
  tilePass(w);
  if (w.tick % CENSUS_EVERY === 0) census(w);
  citySystem(w);
  if (w.tick % KINGDOM_EVERY === KINGDOM_EVERY / 2) kingdomSystem(w);
  w.tick++;
}

/** Counting sort of live actors into 8×8-tile cells, with a 16-byte entry per actor in cell order. */
export function rebuildGrid(w: World): void {
  const { cellStart, cellFill, cellOf, cellF32, cellI32, gridW } = w;
  const a = w.a;
  const ax = a.x;
  const ay = a.y;
  const alive = a.alive;
  const cells = cellFill.length;
  const end = w.actorEnd;
  cellFill.fill(0);
  for (let i = 0; i < end; i++) {
    if (alive[i] === 0) {
      cellOf[i] = -1;
      continue;
    }
    const cell = ((ay[i]! | 0) >> GRID_SHIFT) * gridW + ((ax[i]! | 0) >> GRID_SHIFT);
    cellOf[i] = cell;
    cellFill[cell]!++;
  }
  let sum = 0;
  for (let c = 0; c < cells; c++) {
    cellStart[c] = sum;
    const n = cellFill[c]!;
    cellFill[c] = sum;
    sum += n;
  }
  cellStart[cells] = sum;
  const asset = a.asset;
  const kingdom = a.kingdom;
  for (let i = 0; i < end; i++) {
    const cell = cellOf[i]!;
    if (cell < 0) continue;
    const p = cellFill[cell]!;
    cellFill[cell] = p + 1;
    const e = p << 2;
    cellF32[e] = ax[i]!;
    cellF32[e + 1] = ay[i]!;
    cellI32[e + 2] = i;
    cellI32[e + 3] = (kingdom[i]! << 8) | asset[i]!;
  }
}

/**
 * Re-lays the actor arrays in grid order (live actors packed at the front, cell by cell), so that
 * index order is map order: a think then reads its neighbours from memory it has just touched.
 * References by index (kings, city leaders) follow; the free stack empties. Runs every COMPACT_EVERY
 * ticks, right after the grid is built, so it is part of the deterministic state.
 */
export function compactActors(w: World): void {
  const total = w.cellStart[w.cellFill.length]!;
  if (!w.spare || w.spare.alive.length !== w.capacity) w.spare = allocActorArrays(w.capacity);
  const from = w.a;
  const to = w.spare;
  const cellI32 = w.cellI32;
  for (const name of ACTOR_FIELD_NAMES) {
    const src = from[name];
    const dst = to[name];
    for (let p = 0; p < total; p++) dst[p] = src[cellI32[(p << 2) + 2]!]!;
  }
  const remap = w.cellOf;
  remap.fill(-1, 0, w.actorEnd);
  for (let p = 0; p < total; p++) remap[cellI32[(p << 2) + 2]!] = p;
  const follow = (actor: number) => (actor >= 0 && actor < w.actorEnd ? remap[actor]! : -1);
  for (const k of w.kingdoms) if (k.kingIndex >= 0) k.kingIndex = follow(k.kingIndex);
  for (const c of w.cities) if (c.leaderIndex >= 0) c.leaderIndex = follow(c.leaderIndex);
  w.spare = from;
  w.a = to;
  w.actorEnd = total;
  w.freeCount = 0;
  rebuildGrid(w);
}

function passable(habitat: number, tile: number): boolean {
  if (habitat === HABITAT_LAND) return TILE_WALKABLE[tile] === 1;
  if (habitat === HABITAT_WATER) return TILE_WATER[tile] === 1;
  return true;
}

/**
 * Every tick an actor only moves (its velocity already carries the speed of the tile it stood on
 * when it last thought), and reads a tile only when it crosses into a new one. Everything else
 * (ageing, hazards, sickness, hunger, decisions) happens in its think, every THINK_EVERY ticks.
 */
function actorPass(w: World): void {
  const a = w.a;
  const { alive, x: ax, y: ay, vx: avx, vy: avy } = a;
  const width = w.width;
  const height = w.height;
  const tileType = w.tileType;
  const phase = w.tick & THINK_MASK;
  const end = w.actorEnd;
  for (let i = 0; i < end; i++) {
    if (alive[i] === 0) continue;
    if (((i + phase) & THINK_MASK) === 0) {
      think(w, i);
      if (alive[i] === 0) continue;
    }
    const vx = avx[i]!;
    const vy = avy[i]!;
    if (vx === 0 && vy === 0) continue;
    const x = ax[i]!;
    const y = ay[i]!;
    const nx = Math.fround(x + vx);
    const ny = Math.fround(y + vy);
    if (nx < 0 || ny < 0 || nx >= width || ny >= height) {
      avx[i] = -vx;
      avy[i] = -vy;
      continue;
    }
    const tx = nx | 0;
    const ty = ny | 0;
    if (tx !== (x | 0) || ty !== (y | 0)) {
      const habitat = ACTOR_HABITAT[a.asset[i]!]!;
      if (habitat !== HABITAT_AIR && !passable(habitat, tileType[ty * width + tx]!) && passable(habitat, tileType[(y | 0) * width + (x | 0)]!)) {
        avx[i] = -vx;
        avy[i] = -vy;
        continue;
      }
    }
    ax[i] = nx;
    ay[i] = ny;
  }
}

/** Hit points lost per think to hazards (a think covers THINK_EVERY ticks). */
const FIRE_DAMAGE = 3 * THINK_EVERY;
const LAVA_DAMAGE = 8 * THINK_EVERY;
const DROWN_DAMAGE = 2 * THINK_EVERY;
/** The plague costs 1 hp every 4 ticks. */
const PLAGUE_DAMAGE = THINK_EVERY / 4;

function think(w: World, i: number): void {
  const a = w.a;
  const asset = a.asset[i]!;
  const age = a.age[i]! + THINK_EVERY;
  a.age[i] = age;
  if (age > a.maxAge[i]! && !w.laws.infinite_lifespan) {
    reportDeath(w, i, 'age');
    killActor(w, i);
    return;
  }
  const x = a.x[i]!;
  const y = a.y[i]!;
  const tile = (y | 0) * w.width + (x | 0);
  const ground = w.tileType[tile]!;
  const habitat = ACTOR_HABITAT[asset]!;
  const kind = ACTOR_KIND[asset]!;
  let hp = a.hp[i]!;
  if (ACTOR_FIREPROOF[asset] === 0) {
    const f = w.fire[tile]!;
    if (f !== 0 && f !== FIRE_EXTINGUISHED) hp -= FIRE_DAMAGE;
    if (ground === T.lava && habitat !== HABITAT_AIR) hp -= LAVA_DAMAGE;
  }
  if (habitat === HABITAT_LAND ? TILE_WATER[ground] === 1 : habitat === HABITAT_WATER && TILE_WATER[ground] === 0) hp -= DROWN_DAMAGE;
  const plague = a.plague[i]!;
  if (plague > 0) {
    a.plague[i] = plague > THINK_EVERY ? plague - THINK_EVERY : 0;
    hp -= PLAGUE_DAMAGE;
  }
  const blessed = a.blessed[i]!;
  if (blessed > 0) {
    a.blessed[i] = blessed > THINK_EVERY ? blessed - THINK_EVERY : 0;
    if (hp < a.maxHp[i]!) hp = Math.min(a.maxHp[i]!, hp + PER_THINK);
  }
  const rate = ACTOR_HUNGER_RATE[asset]!;
  if (rate !== 0) {
    let hunger = a.hunger[i]! + rate * PER_THINK;
    if (hunger >= 255) {
      hunger = 255;
      hp -= (a.maxHp[i]! >> 3 || 1) * PER_THINK;
    }
    a.hunger[i] = hunger;
  }
  if (hp <= 0) {
    // The cause is worked out only for a death that someone hears of: the living pay nothing for it.
    if (w.events !== null) reportDeath(w, i, hazardCause(w, i, tile, ground, habitat, plague));
    killActor(w, i);
    return;
  }
  a.hp[i] = hp;
  const cooldown = a.cooldown[i]!;
  if (cooldown > 0) a.cooldown[i] = cooldown - 1;
  const speed = (habitat === HABITAT_AIR ? 1 : TILE_SPEED[ground]!) * (a.blessed[i]! > 0 ? 1.25 : 1) * ACTOR_SPEED[asset]!;

  // Neighbours from the grid's cell-ordered copies: the nearest actor worth attacking, threats to
  // flee, kin for crowding.
  const { cellStart, cellF32, cellI32, gridW, gridH } = w;
  const gx0 = Math.max(0, Math.floor(x - SENSE) >> GRID_SHIFT);
  const gx1 = Math.min(gridW - 1, Math.floor(x + SENSE) >> GRID_SHIFT);
  const gy0 = Math.max(0, Math.floor(y - SENSE) >> GRID_SHIFT);
  const gy1 = Math.min(gridH - 1, Math.floor(y + SENSE) >> GRID_SHIFT);
  const kingdom = a.kingdom[i]!;
  const fleer = kind === ACTOR_KIND_ANIMAL && ACTOR_CARNIVORE[asset] === 0;
  const sick = a.plague[i]! > 0;
  const hungry = a.hunger[i]!;
  let target = -1;
  let bestD2 = SENSE2;
  let threatX = 0;
  let threatY = 0;
  let threats = 0;
  let kin = 0;
  let examined = 0;
  scan: for (let gy = gy0; gy <= gy1; gy++) {
    for (let gx = gx0; gx <= gx1; gx++) {
      const cell = gy * gridW + gx;
      const stop = cellStart[cell + 1]!;
      for (let p = cellStart[cell]!; p < stop; p++) {
        const e = p << 2;
        const j = cellI32[e + 2]!;
        if (j === i) continue;
        if (++examined > MAX_EXAMINE) break scan;
        const dx = cellF32[e]! - x;
        const dy = cellF32[e + 1]! - y;
        const d2 = dx * dx + dy * dy;
        if (d2 > SENSE2) continue;
        const packed = cellI32[e + 3]!;
        const other = packed & 255;
        if (other === asset) kin++;
        const otherKingdom = packed >> 8;
        if (sick && d2 < 4 && ACTOR_KIND[other] !== ACTOR_KIND_MONSTER && a.plague[j] === 0 && (nextU32(w.rng) & 7) < PER_THINK) {
          a.plague[j] = PLAGUE_TICKS;
        }
        if (d2 < bestD2 && wantsAttack(w, asset, kingdom, hungry, other, otherKingdom)) {
          target = j;
          bestD2 = d2;
        } else if (fleer && ACTOR_KIND[other] !== ACTOR_KIND_CIV && wantsAttack(w, other, otherKingdom, a.hunger[j]!, asset, kingdom)) {
          threatX += dx;
          threatY += dy;
          threats++;
        }
      }
    }
  }

  if (target >= 0 && a.alive[target] === 1) {
    if (bestD2 <= REACH2) {
      a.vx[i] = 0;
      a.vy[i] = 0;
      attack(w, i, target);
    } else {
      headToward(w, i, a.x[target]!, a.y[target]!, speed * 1.4);
    }
    return;
  }
  if (threats > 0) {
    headToward(w, i, x - threatX, y - threatY, speed);
    return;
  }
  if (asset === A.dragon || asset === A.demon) {
    if ((nextU32(w.rng) & 7) < PER_THINK) ignite(w, tile, 25);
  }
  if (a.hunger[i]! > HUNGRY) eat(w, i, tile, ground, kind);
  if (a.cooldown[i] === 0 && a.hunger[i]! < 128 && ACTORS[asset]!.breedPerMille > 0 && isAdult(w, i) && canBreed(w, i, kin, kind)) {
    // Under grow and duel a blessing is an investment: the blessed breed more often, chance and pause alike.
    const pace = kind === ACTOR_KIND_CIV && a.blessed[i]! > 0 ? rulesOf(w).blessedBreeding : 1;
    if (chancePerMille(w.rng, ACTORS[asset]!.breedPerMille * PER_THINK * pace) && w.birthCount < w.births.length) {
      w.births[w.birthCount++] = i;
      a.cooldown[i] = Math.ceil(ACTORS[asset]!.breedCooldown / PER_THINK / pace);
    }
  }
  if (kind === ACTOR_KIND_CIV) civMove(w, i, tile, speed);
  else wander(w, i, 3, speed);
}

/**
 * Which of the hazards of a fatal think did the most damage (the same tests and figures as think).
 * Reads only: `plague` is the sickness left before this think.
 */
function hazardCause(w: World, i: number, tile: number, ground: number, habitat: number, plague: number): DeathCause {
  const a = w.a;
  const asset = a.asset[i]!;
  let cause: DeathCause = 'combat'; // none applied: earlier wounds did it
  let worst = 0;
  const weigh = (damage: number, what: DeathCause) => {
    if (damage > worst) {
      worst = damage;
      cause = what;
    }
  };
  if (ACTOR_FIREPROOF[asset] === 0) {
    const f = w.fire[tile]!;
    if (f !== 0 && f !== FIRE_EXTINGUISHED) weigh(FIRE_DAMAGE, 'fire');
    if (ground === T.lava && habitat !== HABITAT_AIR) weigh(LAVA_DAMAGE, 'lava');
  }
  if (habitat === HABITAT_LAND ? TILE_WATER[ground] === 1 : habitat === HABITAT_WATER && TILE_WATER[ground] === 0) weigh(DROWN_DAMAGE, 'drowning');
  if (plague > 0) weigh(PLAGUE_DAMAGE, 'plague');
  if (ACTOR_HUNGER_RATE[asset] !== 0 && a.hunger[i] === 255) weigh((a.maxHp[i]! >> 3 || 1) * PER_THINK, 'hunger');
  return cause;
}

/**
 * Does an actor (asset ai, kingdom ki, hunger hi) want to attack one of asset aj, kingdom kj? Not
 * symmetric: sheep never attack, wolves attack what they can eat, people fight monsters, dangerous
 * beasts, enemies at war, and hunt grazers when hungry.
 */
function wantsAttack(w: World, ai: number, ki: number, hi: number, aj: number, kj: number): boolean {
  if (ki !== 0 && ki === kj) return false;
  const kindI = ACTOR_KIND[ai]!;
  const kindJ = ACTOR_KIND[aj]!;
  if (kindI === ACTOR_KIND_MONSTER) return ACTOR_RACE[ai] !== ACTOR_RACE[aj] && !(ai === A.zombie && kindJ === ACTOR_KIND_MONSTER);
  if (kindI === ACTOR_KIND_CIV) {
    if (kindJ === ACTOR_KIND_MONSTER) return true;
    if (kindJ === ACTOR_KIND_ANIMAL) {
      if (ACTOR_CARNIVORE[aj] === 1 && ACTOR_PREY_MAX[aj]! >= ACTOR_SIZE[ai]!) return true;
      return hi > 120 && ACTOR_CARNIVORE[aj] === 0 && ACTOR_HABITAT[aj] === HABITAT_LAND;
    }
    return ki !== 0 && kj !== 0 && atWar(w, ki, kj);
  }
  if (ACTOR_CARNIVORE[ai] === 1) {
    return hi > 40 && kindJ !== ACTOR_KIND_MONSTER && ACTOR_RACE[ai] !== ACTOR_RACE[aj] && ACTOR_SIZE[aj]! <= ACTOR_PREY_MAX[ai]!;
  }
  return false;
}

function attack(w: World, i: number, j: number): void {
  const a = w.a;
  const ai = a.asset[i]!;
  let damage = ACTOR_DAMAGE[ai]! * PER_THINK * (0.75 + 0.5 * nextFloat(w.rng));
  if (a.blessed[i]! > 0) damage *= 1.5;
  const hp = a.hp[j]! - Math.max(1, Math.floor(damage));
  if (ai === A.dragon) ignite(w, (a.y[j]! | 0) * w.width + (a.x[j]! | 0), 30);
  if (hp > 0) {
    a.hp[j] = hp;
    return;
  }
  // A kill: hunters eat, zombies make zombies, soldiers take cities.
  if (ACTOR_CARNIVORE[ai] === 1 || ACTOR_KIND[ai] === ACTOR_KIND_CIV) a.hunger[i] = Math.max(0, a.hunger[i]! - 150);
  const victimCity = a.city[j]!;
  const victimKingdom = a.kingdom[j]!;
  if (ai === A.zombie && ACTOR_KIND[a.asset[j]!] !== ACTOR_KIND_MONSTER && ACTOR_HABITAT[a.asset[j]!] === HABITAT_LAND && chancePerMille(w.rng, 300)) {
    reportDeath(w, j, 'zombified');
    transformActor(w, j, A.zombie, wildKingdomFor(w, A.zombie));
    reportBirth(w, j);
  } else {
    reportDeath(w, j, 'combat');
    killActor(w, j);
  }
  const ki = a.kingdom[i]!;
  if (ACTOR_KIND[ai] === ACTOR_KIND_CIV && victimCity !== 0 && ki !== 0 && atWar(w, ki, victimKingdom)) {
    const city = cityOf(w, victimCity);
    if (city?.alive && city.kingdomId === victimKingdom && city.units <= 3) {
      const dx = a.x[i]! - city.x;
      const dy = a.y[i]! - city.y;
      const reach = city.radius + 2;
      if (dx * dx + dy * dy <= reach * reach) conquerCity(w, city, ki);
    }
  }
}

function eat(w: World, i: number, tile: number, ground: number, kind: number): void {
  const a = w.a;
  if (kind === ACTOR_KIND_CIV) {
    const city = cityOf(w, a.city[i]!);
    if (city?.alive && city.food >= 1) {
      city.food -= 1;
      a.hunger[i] = Math.max(0, a.hunger[i]! - 160);
      return;
    }
  }
  const grazer = ACTOR_GRAZER[a.asset[i]!] === 1;
  // A starving hunter makes do with berries and roots, at a third of a grazer's gain.
  if (!grazer && (ACTOR_CARNIVORE[a.asset[i]!] === 0 || a.hunger[i]! < STARVING)) return;
  const food = TILE_FOOD[ground]! + TOP_FOOD[w.topType[tile]!]!;
  if (food === 0) return;
  a.hunger[i] = Math.max(0, a.hunger[i]! - Math.floor((food * 40) / (grazer ? 1 : 3)));
  // Grazing wears the grass down; regrowth brings it back.
  if (ground === T.grass && kind === ACTOR_KIND_ANIMAL && (nextU32(w.rng) & 15) === 0) setTileType(w, tile, T.soilHigh);
}

function canBreed(w: World, i: number, kin: number, kind: number): boolean {
  if (w.population >= softCap(w)) return false;
  const a = w.a;
  if (kind === ACTOR_KIND_CIV) {
    const city = cityOf(w, a.city[i]!);
    if (!city?.alive || city.units >= housingCapacity(city) || city.food < 2) return false;
    city.food -= 1;
    return true;
  }
  return kin < 4 && w.assetPop[a.asset[i]!]! < animalCap(w);
}

/** Natural growth stops here; spawning may go beyond (up to the hard cap). */
export function softCap(w: World): number {
  return Math.min(SOFT_CAP_MAX, 64 + Math.floor(w.landTiles / 6));
}

/** Natural growth never passes this, whatever the land: it keeps a tick within budget (bench/tick.ts). */
export const SOFT_CAP_MAX = 50_000;

function animalCap(w: World): number {
  return Math.max(40, Math.floor(w.landTiles / 150));
}

function headToward(w: World, i: number, tx: number, ty: number, speed: number): void {
  const a = w.a;
  const dx = tx - a.x[i]!;
  const dy = ty - a.y[i]!;
  const d = Math.sqrt(dx * dx + dy * dy);
  if (d < 0.05) {
    a.vx[i] = 0;
    a.vy[i] = 0;
    return;
  }
  const v = speed / d;
  a.vx[i] = dx * v;
  a.vy[i] = dy * v;
}

/** Random walk: of 8 outcomes, `stops` stand still and the rest pick one of 8 directions. */
function wander(w: World, i: number, stops: number, speed: number): void {
  const r = nextU32(w.rng);
  const a = w.a;
  if ((r & 7) < stops) {
    a.vx[i] = 0;
    a.vy[i] = 0;
    return;
  }
  const dir = (r >>> 3) & 7;
  a.vx[i] = DIRS_X[dir]! * speed;
  a.vy[i] = DIRS_Y[dir]! * speed;
}

function civMove(w: World, i: number, tile: number, speed: number): void {
  const a = w.a;
  const cityId = a.city[i]!;
  let city = cityOf(w, cityId);
  if (city && !city.alive) {
    a.city[i] = 0;
    city = undefined;
  }
  if (city) {
    const kingdom = kingdomOf(w, city.kingdomId);
    if (kingdom && kingdom.warTarget !== 0 && a.uid[i]! % 3 === 0 && isAdult(w, i)) {
      const target = cityOf(w, kingdom.warTarget);
      if (target?.alive) {
        headToward(w, i, target.x + 0.5, target.y + 0.5, speed);
        return;
      }
    }
    const dx = city.x + 0.5 - a.x[i]!;
    const dy = city.y + 0.5 - a.y[i]!;
    if (dx * dx + dy * dy > city.radius * city.radius) headToward(w, i, city.x + 0.5, city.y + 0.5, speed);
    else wander(w, i, 2, speed);
    return;
  }
  // Homeless: join a city of our own on whose land we stand, walk home, or found one.
  const kingdomId = a.kingdom[i]!;
  const kingdom = kingdomOf(w, kingdomId);
  const owner = cityOf(w, w.owner[tile]!);
  if (owner?.alive) {
    const ownerKingdom = kingdomOf(w, owner.kingdomId);
    const mine = kingdomId !== 0 ? owner.kingdomId === kingdomId : ownerKingdom !== undefined && ownerKingdom.race === ACTORS[a.asset[i]!]!.race;
    if (mine) {
      joinCity(w, i, owner.id);
      wander(w, i, 2, speed);
      return;
    }
  }
  if (kingdom && !kingdom.alive) a.kingdom[i] = 0;
  if (kingdom?.alive && kingdom.capitalId !== 0) {
    const capital = cityOf(w, kingdom.capitalId)!;
    headToward(w, i, capital.x + 0.5, capital.y + 0.5, speed);
    return;
  }
  const mayFound = a.kingdom[i] === 0 ? w.civAlive < MAX_CIV_KINGDOMS_ALIVE : true;
  if (mayFound && isAdult(w, i) && (nextU32(w.rng) & 3) === 0 && canFoundAt(w, a.x[i]! | 0, a.y[i]! | 0)) {
    if (a.kingdom[i] === 0) foundKingdom(w, i);
    else foundCityFor(w, i);
    return;
  }
  wander(w, i, 1, speed);
}

/** The births queued by this tick's thinks (exported for the event tests: a frame with many births). */
export function flushBirths(w: World): void {
  const a = w.a;
  const count = w.birthCount;
  w.birthCount = 0;
  for (let n = 0; n < count; n++) {
    const parent = w.births[n]!;
    if (a.alive[parent] !== 1) continue;
    const child = createActor(w, a.asset[parent]!, a.x[parent]!, a.y[parent]!, false, a.kingdom[parent]!, a.city[parent]!);
    if (child >= 0) reportBirth(w, child);
  }
}

const NEIGHBOUR_DX = [1, -1, 0, 0] as const;
const NEIGHBOUR_DY = [0, 0, 1, -1] as const;

/** Fires burn down, spread to flammable neighbours, and leave ash and ruins. */
function firePass(w: World): void {
  const fire = w.fire;
  const width = w.width;
  const height = w.height;
  let k = 0;
  while (k < w.fireCount) {
    const tile = w.fireList[k]!;
    const f = fire[tile]!;
    if (f === 0 || f === FIRE_EXTINGUISHED || f === 1) {
      if (f === 1) burnOut(w, tile);
      fire[tile] = 0;
      w.fireList[k] = w.fireList[--w.fireCount]!;
      continue;
    }
    fire[tile] = f - 1;
    const r = nextU32(w.rng);
    if ((r & 7) === 0) {
      const dir = (r >>> 3) & 3;
      const x = (tile % width) + NEIGHBOUR_DX[dir]!;
      const y = ((tile / width) | 0) + NEIGHBOUR_DY[dir]!;
      if (x >= 0 && y >= 0 && x < width && y < height && !w.laws.rain_toggle) ignite(w, y * width + x, 20 + ((r >>> 5) & 15));
    }
    k++;
  }
}

function burnOut(w: World, tile: number): void {
  const ground = w.tileType[tile]!;
  if (ground === T.grass || ground === T.forest) setTileType(w, tile, T.ash);
  const top = w.topType[tile]!;
  if (top === TOP.house) setTop(w, tile, TOP.ruins);
  else if (TOP_VEGETATION[top] === 1 && top !== TOP.cactus) setTop(w, tile, 0);
}

/** Random tiles each tick: ash heals, soil greens, grass flowers, forests reseed; rain does more. */
function tilePass(w: World): void {
  const tiles = w.width * w.height;
  const samples = Math.max(32, tiles >> 9);
  for (let s = 0; s < samples; s++) regrow(w, nextU32(w.rng) % tiles);
  if (w.laws.rain_toggle) for (let s = 0; s < samples; s++) rainOn(w, nextU32(w.rng) % tiles, 4);
}

function regrow(w: World, i: number): void {
  const ground = w.tileType[i]!;
  const r = nextU32(w.rng);
  if (ground === T.ash) {
    if ((r & 3) === 0) setTileType(w, i, T.soilLow);
  } else if (ground === T.soilLow) {
    if ((r & 7) === 0) setTileType(w, i, T.soilHigh);
  } else if (ground === T.soilHigh) {
    if ((r & 7) === 0) setTileType(w, i, T.grass);
  } else if (ground === T.grass) {
    if (w.topType[i] === 0 && w.fire[i] === 0 && (r & 31) === 0) {
      const pick = (r >>> 5) % 3;
      setTop(w, i, pick === 0 ? TOP.flowers : pick === 1 ? TOP.bush : TOP.oak);
    }
  } else if (ground === T.forest) {
    if (w.topType[i] === 0 && w.fire[i] === 0 && (r & 3) === 0) setTop(w, i, (hash32(i) & 1) === 0 ? TOP.oak : TOP.pine);
  }
}

/** Rain on one tile; `greening` in 0..8 (higher = more likely to turn soil green). */
export function rainOn(w: World, i: number, greening: number): void {
  extinguish(w, i);
  const ground = w.tileType[i]!;
  const r = nextU32(w.rng) & 7;
  if (ground === T.lava) {
    if (r < greening) setTileType(w, i, T.hills);
  } else if (ground === T.ash) {
    setTileType(w, i, T.soilLow);
  } else if (ground === T.soilLow) {
    if (r < greening) setTileType(w, i, T.soilHigh);
  } else if (ground === T.soilHigh) {
    if (r < greening) setTileType(w, i, T.grass);
  }
}
