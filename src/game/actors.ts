// Actor life and death on the structure-of-arrays storage: create, kill, turn into another asset.
// Which kingdom an actor joins is decided by the caller (see kingdoms.ts).
import { ACTORS, YEAR_TICKS } from './assets.ts';
import { actorName } from './names.ts';
import { nextFloat } from './rng.ts';
import { allocActor, cityOf, DEAD_CAP, kingdomOf, releaseActor, type World } from './world.ts';

export function adultAgeTicks(asset: number): number {
  return (ACTORS[asset]?.adultYears ?? 0) * YEAR_TICKS;
}

export function isAdult(w: World, actor: number): boolean {
  return w.a.age[actor]! >= adultAgeTicks(w.a.asset[actor]!);
}

/** A new actor at (x, y) in tile units; returns its index, or -1 when the world is full. */
export function createActor(w: World, asset: number, x: number, y: number, adult: boolean, kingdom: number, city: number): number {
  const info = ACTORS[asset];
  if (!info) return -1;
  const actor = allocActor(w);
  if (actor < 0) return -1;
  const a = w.a;
  a.alive[actor] = 1;
  a.asset[actor] = asset;
  a.born[actor] = asset;
  a.hunger[actor] = 0;
  a.cooldown[actor] = adult ? 8 : 0;
  a.uid[actor] = w.nextUid++;
  a.age[actor] = adult ? adultAgeTicks(asset) : 0;
  a.maxAge[actor] = Math.floor(info.lifespanYears * YEAR_TICKS * (0.75 + 0.5 * nextFloat(w.rng)));
  a.kingdom[actor] = kingdom;
  a.city[actor] = city;
  a.hp[actor] = info.maxHp;
  a.maxHp[actor] = info.maxHp;
  a.plague[actor] = 0;
  a.blessed[actor] = 0;
  a.x[actor] = x;
  a.y[actor] = y;
  a.vx[actor] = 0;
  a.vy[actor] = 0;
  w.population++;
  w.lifetime++;
  w.assetPop[asset]!++;
  // Counts move at once (the census redoes them) so caps see a birth before the next census.
  const k = kingdomOf(w, kingdom);
  if (k) k.units++;
  const c = cityOf(w, city);
  if (c) c.units++;
  return actor;
}

/** Removes an actor, remembering it in the recent-dead ring (query_actors alive:false). */
export function killActor(w: World, actor: number): void {
  const a = w.a;
  if (a.alive[actor] !== 1) return;
  const dead = w.dead;
  const at = dead.total % DEAD_CAP;
  dead.uid[at] = a.uid[actor]!;
  dead.born[at] = a.born[actor]!;
  dead.asset[at] = a.asset[actor]!;
  dead.kingdom[at] = a.kingdom[actor]!;
  dead.x[at] = Math.floor(a.x[actor]!);
  dead.y[at] = Math.floor(a.y[actor]!);
  dead.total++;
  a.alive[actor] = 0;
  w.population--;
  w.assetPop[a.asset[actor]!]!--;
  const k = kingdomOf(w, a.kingdom[actor]!);
  if (k && k.units > 0) k.units--;
  const c = cityOf(w, a.city[actor]!);
  if (c && c.units > 0) c.units--;
  releaseActor(w, actor);
}

/** Turns a live actor into another asset in place (a bitten human rises as a zombie). */
export function transformActor(w: World, actor: number, asset: number, kingdom: number): void {
  const info = ACTORS[asset];
  if (!info) return;
  const a = w.a;
  w.assetPop[a.asset[actor]!]!--;
  w.assetPop[asset]!++;
  const oldK = kingdomOf(w, a.kingdom[actor]!);
  if (oldK && oldK.units > 0) oldK.units--;
  const oldC = cityOf(w, a.city[actor]!);
  if (oldC && oldC.units > 0) oldC.units--;
  const newK = kingdomOf(w, kingdom);
  if (newK) newK.units++;
  a.asset[actor] = asset;
  a.kingdom[actor] = kingdom;
  a.city[actor] = 0;
  a.hp[actor] = info.maxHp;
  a.maxHp[actor] = info.maxHp;
  a.age[actor] = 0;
  a.maxAge[actor] = Math.floor(info.lifespanYears * YEAR_TICKS * (0.75 + 0.5 * nextFloat(w.rng)));
  a.plague[actor] = 0;
  a.hunger[actor] = 0;
  a.vx[actor] = 0;
  a.vy[actor] = 0;
}

export function nameOf(w: World, actor: number): string {
  return actorName(w.seed, w.a.uid[actor]!, w.a.born[actor]!);
}

export function deadNameAt(w: World, ringIndex: number): string {
  return actorName(w.seed, w.dead.uid[ringIndex]!, w.dead.born[ringIndex]!);
}
