// Actor life and death on the structure-of-arrays storage: create, kill, turn into another asset.
// Which kingdom an actor joins is decided by the caller (see kingdoms.ts).
import { ACTORS, YEAR_TICKS } from './assets.ts';
import { actorName } from './names.ts';
import { nextFloat } from './rng.ts';
import { allocSlot, cityOf, DEAD_CAP, kingdomOf, releaseSlot, type World } from './world.ts';

export function adultAgeTicks(asset: number): number {
  return (ACTORS[asset]?.adultYears ?? 0) * YEAR_TICKS;
}

export function isAdult(w: World, slot: number): boolean {
  return w.a.age[slot]! >= adultAgeTicks(w.a.asset[slot]!);
}

/** A new actor at (x, y) in tile units; returns its slot, or -1 when the world is full. */
export function createActor(w: World, asset: number, x: number, y: number, adult: boolean, kingdom: number, city: number): number {
  const info = ACTORS[asset];
  if (!info) return -1;
  const slot = allocSlot(w);
  if (slot < 0) return -1;
  const a = w.a;
  a.alive[slot] = 1;
  a.asset[slot] = asset;
  a.born[slot] = asset;
  a.hunger[slot] = 0;
  a.cooldown[slot] = adult ? 8 : 0;
  a.uid[slot] = w.nextUid++;
  a.age[slot] = adult ? adultAgeTicks(asset) : 0;
  a.maxAge[slot] = Math.floor(info.lifespanYears * YEAR_TICKS * (0.75 + 0.5 * nextFloat(w.rng)));
  a.kingdom[slot] = kingdom;
  a.city[slot] = city;
  a.hp[slot] = info.maxHp;
  a.maxHp[slot] = info.maxHp;
  a.plague[slot] = 0;
  a.blessed[slot] = 0;
  a.x[slot] = x;
  a.y[slot] = y;
  a.vx[slot] = 0;
  a.vy[slot] = 0;
  w.population++;
  w.lifetime++;
  w.assetPop[asset]!++;
  // Counts move at once (the census redoes them) so caps see a birth before the next census.
  const k = kingdomOf(w, kingdom);
  if (k) k.units++;
  const c = cityOf(w, city);
  if (c) c.units++;
  return slot;
}

/** Removes an actor, remembering it in the recent-dead ring (query_actors alive:false). */
export function killActor(w: World, slot: number): void {
  const a = w.a;
  if (a.alive[slot] !== 1) return;
  const dead = w.dead;
  const at = dead.total % DEAD_CAP;
  dead.uid[at] = a.uid[slot]!;
  dead.born[at] = a.born[slot]!;
  dead.asset[at] = a.asset[slot]!;
  dead.kingdom[at] = a.kingdom[slot]!;
  dead.x[at] = Math.floor(a.x[slot]!);
  dead.y[at] = Math.floor(a.y[slot]!);
  dead.total++;
  a.alive[slot] = 0;
  w.population--;
  w.assetPop[a.asset[slot]!]!--;
  const k = kingdomOf(w, a.kingdom[slot]!);
  if (k && k.units > 0) k.units--;
  const c = cityOf(w, a.city[slot]!);
  if (c && c.units > 0) c.units--;
  releaseSlot(w, slot);
}

/** Turns a live actor into another asset in place (a bitten human rises as a zombie). */
export function transformActor(w: World, slot: number, asset: number, kingdom: number): void {
  const info = ACTORS[asset];
  if (!info) return;
  const a = w.a;
  w.assetPop[a.asset[slot]!]!--;
  w.assetPop[asset]!++;
  const oldK = kingdomOf(w, a.kingdom[slot]!);
  if (oldK && oldK.units > 0) oldK.units--;
  const oldC = cityOf(w, a.city[slot]!);
  if (oldC && oldC.units > 0) oldC.units--;
  const newK = kingdomOf(w, kingdom);
  if (newK) newK.units++;
  a.asset[slot] = asset;
  a.kingdom[slot] = kingdom;
  a.city[slot] = 0;
  a.hp[slot] = info.maxHp;
  a.maxHp[slot] = info.maxHp;
  a.age[slot] = 0;
  a.maxAge[slot] = Math.floor(info.lifespanYears * YEAR_TICKS * (0.75 + 0.5 * nextFloat(w.rng)));
  a.plague[slot] = 0;
  a.hunger[slot] = 0;
  a.vx[slot] = 0;
  a.vy[slot] = 0;
}

export function nameOf(w: World, slot: number): string {
  return actorName(w.seed, w.a.uid[slot]!, w.a.born[slot]!);
}

export function deadNameAt(w: World, ringIndex: number): string {
  return actorName(w.seed, w.dead.uid[ringIndex]!, w.dead.born[ringIndex]!);
}
