// In-memory savepoints: a copy of everything that decides the future (the world as a snapshot, the
// incremental counts exactly as they stood, the interface's pause, window, speed and pending
// milliseconds), and putting it back. Restoring writes into the live world's own arrays when the
// sizes allow, so a rewind costs a few memory copies and no allocation of a whole world.
import { SPEED_INDEX } from './assets.ts';
import { fromSnapshot, toSnapshot, type SandboxSnapshot } from './snapshot.ts';
import type { Ui } from './ui.ts';
import { ACTOR_FIELD_NAMES, ensureActorCapacity, type City, type Kingdom, type World } from './world.ts';

const SAVEPOINT_FORMAT = 'gcb-sandbox-savepoint';

/** The sandbox's savepoint value (what its snapshot() returns, opaque to the bridge, which keeps it in a `Savepoint`). */
export interface WorldCopy {
  format: typeof SAVEPOINT_FORMAT;
  world: SandboxSnapshot;
  /**
   * Counts kept up to date as the world runs. A snapshot loaded from a file recounts them; a
   * savepoint keeps them as they were, so a rewound world is the same world, not a recount of it.
   */
  counts: { population: number; landTiles: number; civAlive: number; citiesAlive: number };
  ui: { configPaused: boolean; window: string | null; speedId: string; pendingMs: number };
}

export class SavepointError extends Error {}

export function takeSavepoint(w: World, ui: Ui): WorldCopy {
  return {
    format: SAVEPOINT_FORMAT,
    world: toSnapshot(w),
    counts: { population: w.population, landTiles: w.landTiles, civAlive: w.civAlive, citiesAlive: w.citiesAlive },
    ui: { configPaused: ui.configPaused, window: ui.window, speedId: ui.speedId, pendingMs: ui.pendingMs },
  };
}

/** Throws SavepointError unless `v` is what takeSavepoint returns (the world inside was checked when taken). */
export function checkSavepoint(v: unknown): WorldCopy {
  const sp = v as Partial<WorldCopy> | null;
  if (typeof sp !== 'object' || sp === null || sp.format !== SAVEPOINT_FORMAT)
    throw new SavepointError('not a savepoint of this game (take one with snapshot())');
  if (typeof sp.world !== 'object' || typeof sp.counts !== 'object' || typeof sp.ui !== 'object') throw new SavepointError('the savepoint is incomplete');
  if (SPEED_INDEX.get(sp.ui.speedId) === undefined) throw new SavepointError(`the savepoint names an unknown speed '${String(sp.ui.speedId)}'`);
  return sp as WorldCopy;
}

function copyKingdom(k: Kingdom): Kingdom {
  return { ...k, wars: [...k.wars] };
}

function copyCity(c: City): City {
  return { ...c };
}

/**
 * Puts the savepoint's world back into `w` when it has the same size (returns `w`), else into a
 * new world (returned). Either way the result equals the world the savepoint was taken of, in every
 * field that decides the future; the savepoint stays usable for another restore.
 */
export function restoreWorld(w: World, sp: WorldCopy): World {
  const s = sp.world;
  if (s.width !== w.width || s.height !== w.height) {
    const fresh = fromSnapshot(s);
    fresh.events = w.events;
    setCounts(fresh, sp);
    return fresh;
  }
  // The one step that can fail comes first, so a failed restore changes nothing.
  if (!ensureActorCapacity(w, s.hwm)) throw new SavepointError(`the savepoint holds ${s.hwm} actor slots, more than a world may`);
  w.seed = s.seed;
  w.tick = s.tick;
  w.tileType.set(s.tiles.type);
  w.topType.set(s.tiles.top);
  w.elevation.set(s.tiles.elevation);
  w.fire.set(s.tiles.fire);
  w.owner.set(s.tiles.owner);
  if (w.fireList.length < s.fireList.length) w.fireList = new Int32Array(s.fireList.length * 2);
  w.fireList.set(s.fireList);
  w.fireCount = s.fireList.length;
  // Slots past the high-water mark are never read before createActor writes every field of them.
  for (const name of ACTOR_FIELD_NAMES) (w.a[name] as { set(src: ArrayLike<number>): void }).set(s.actors[name]);
  w.slotEnd = s.hwm;
  w.free.set(s.free);
  w.freeCount = s.free.length;
  w.assetPop.set(s.assetPop);
  w.kingdoms = s.kingdoms.map(copyKingdom);
  w.cities = s.cities.map(copyCity);
  w.nextUid = s.counters.nextUid;
  w.lifetime = s.counters.lifetime;
  w.rng.set(s.rng);
  w.laws = { ...s.laws };
  const d = w.dead;
  d.uid.set(s.dead.uid);
  d.born.set(s.dead.born);
  d.asset.set(s.dead.asset);
  d.kingdom.set(s.dead.kingdom);
  d.x.set(s.dead.x);
  d.y.set(s.dead.y);
  d.total = s.dead.total;
  // Between ticks the birth queue is empty and the grid is rebuilt at the start of the next tick.
  w.birthCount = 0;
  setCounts(w, sp);
  return w;
}

function setCounts(w: World, sp: WorldCopy): void {
  w.population = sp.counts.population;
  w.landTiles = sp.counts.landTiles;
  w.civAlive = sp.counts.civAlive;
  w.citiesAlive = sp.counts.citiesAlive;
}

/** Rough bytes of a plain record: 8 a number or flag, 2 a character, 16 of object overhead. */
function recordBytes(r: Kingdom | City): number {
  let n = 16;
  for (const v of Object.values(r) as unknown[]) {
    if (typeof v === 'string') n += 8 + v.length * 2;
    else if (Array.isArray(v)) n += 16 + v.length * 8;
    else n += 8;
  }
  return n;
}

/** The memory a savepoint holds: its typed arrays exactly, its kingdom and city records estimated. */
export function savepointBytes(sp: WorldCopy): number {
  const s = sp.world;
  let bytes = 0;
  for (const v of [s.tiles.type, s.tiles.top, s.tiles.elevation, s.tiles.fire, s.tiles.owner, s.fireList, s.free, s.assetPop, s.rng]) bytes += v.byteLength;
  for (const name of ACTOR_FIELD_NAMES) bytes += s.actors[name].byteLength;
  for (const v of [s.dead.uid, s.dead.born, s.dead.asset, s.dead.kingdom, s.dead.x, s.dead.y]) bytes += v.byteLength;
  for (const k of s.kingdoms) bytes += recordBytes(k);
  for (const c of s.cities) bytes += recordBytes(c);
  return bytes;
}
