// A world as plain data (typed arrays + small records) and back. A snapshot is safe to post between
// threads and is the only thing saves, screenshots and world swaps see. It holds every piece of state
// that decides the future (free-slot stack, fire list, census counts, generator state), so a world
// rebuilt from it runs on exactly like the original; the runtime grid is rebuilt, never saved.
import { createHash } from 'node:crypto';
import { ACTORS, MAX_ZONES, MIN_ZONES, TILES, TOPS, ZONE_TILES } from './assets.ts';
import { recountAlive } from './kingdoms.ts';
import {
  ACTOR_FIELD_NAMES,
  ACTOR_FIELDS,
  countLand,
  createWorld,
  DEAD_CAP,
  HARD_ACTOR_CAP,
  MAX_CITY_ID,
  type ActorArrays,
  type City,
  type DeadRing,
  type Kingdom,
  type Laws,
  type World,
} from './world.ts';

export const SNAPSHOT_FORMAT = 'gcb-sandbox-world';
export const SNAPSHOT_VERSION = 1;

export type SandboxSnapshot = {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  width: number;
  height: number;
  seed: number;
  tick: number;
  tiles: { type: Uint8Array; top: Uint8Array; elevation: Uint8Array; fire: Uint8Array; owner: Uint16Array };
  fireList: Int32Array;
  /** Each actor field sliced to `hwm` entries. */
  actors: ActorArrays;
  /** The world's slotEnd (high-water mark of the actor slots); the name is the save format's. */
  hwm: number;
  free: Int32Array;
  assetPop: Int32Array;
  kingdoms: Kingdom[];
  cities: City[];
  counters: { nextUid: number; lifetime: number };
  rng: Uint32Array;
  laws: Laws;
  dead: DeadRing;
};

function copyKingdom(k: Kingdom): Kingdom {
  return { ...k, wars: [...k.wars] };
}

/** A deep copy of the live world's state. */
export function toSnapshot(w: World): SandboxSnapshot {
  const actors = {} as Record<keyof ActorArrays, unknown>;
  for (const name of ACTOR_FIELD_NAMES) actors[name] = w.a[name].slice(0, w.slotEnd);
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    width: w.width,
    height: w.height,
    seed: w.seed,
    tick: w.tick,
    tiles: {
      type: w.tileType.slice(),
      top: w.topType.slice(),
      elevation: w.elevation.slice(),
      fire: w.fire.slice(),
      owner: w.owner.slice(),
    },
    fireList: w.fireList.slice(0, w.fireCount),
    actors: actors as ActorArrays,
    hwm: w.slotEnd,
    free: w.free.slice(0, w.freeCount),
    assetPop: w.assetPop.slice(),
    kingdoms: w.kingdoms.map(copyKingdom),
    cities: w.cities.map((c) => ({ ...c })),
    counters: { nextUid: w.nextUid, lifetime: w.lifetime },
    rng: w.rng.slice(),
    laws: { ...w.laws },
    dead: {
      uid: w.dead.uid.slice(),
      born: w.dead.born.slice(),
      asset: w.dead.asset.slice(),
      kingdom: w.dead.kingdom.slice(),
      x: w.dead.x.slice(),
      y: w.dead.y.slice(),
      total: w.dead.total,
    },
  };
}

/**
 * A live world from a snapshot (copied: the snapshot stays usable). Checks its shape first; the
 * per-tile and per-actor values were checked where the snapshot was made or decoded (pool threads),
 * so the game thread's frame is not spent on them again unless `deep`.
 */
export function fromSnapshot(input: unknown, deep = false): World {
  const s = validateSnapshot(input, deep);
  const w = createWorld(s.width, s.height, s.seed, s.hwm + 1024);
  w.tick = s.tick;
  w.tileType.set(s.tiles.type);
  w.topType.set(s.tiles.top);
  w.elevation.set(s.tiles.elevation);
  w.fire.set(s.tiles.fire);
  w.owner.set(s.tiles.owner);
  w.fireList = new Int32Array(Math.max(1024, s.fireList.length * 2));
  w.fireList.set(s.fireList);
  w.fireCount = s.fireList.length;
  for (const name of ACTOR_FIELD_NAMES) (w.a[name] as { set(src: ArrayLike<number>): void }).set(s.actors[name]);
  w.slotEnd = s.hwm;
  w.free.set(s.free);
  w.freeCount = s.free.length;
  w.assetPop.set(s.assetPop);
  w.kingdoms = s.kingdoms.map(copyKingdom);
  w.cities = s.cities.map((c) => ({ ...c }));
  w.nextUid = s.counters.nextUid;
  w.lifetime = s.counters.lifetime;
  w.rng = s.rng.slice();
  w.laws = { ...s.laws };
  w.dead = {
    uid: s.dead.uid.slice(),
    born: s.dead.born.slice(),
    asset: s.dead.asset.slice(),
    kingdom: s.dead.kingdom.slice(),
    x: s.dead.x.slice(),
    y: s.dead.y.slice(),
    total: s.dead.total,
  };
  let population = 0;
  for (let i = 0; i < w.slotEnd; i++) if (w.a.alive[i] === 1) population++;
  w.population = population;
  w.landTiles = countLand(w);
  recountAlive(w);
  return w;
}

/** sha256 of everything that decides the world's future, in a fixed order. */
export function hashSnapshot(s: SandboxSnapshot): string {
  const hash = createHash('sha256');
  const bytes = (v: ArrayBufferView) => hash.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  hash.update(
    JSON.stringify({
      format: s.format,
      version: s.version,
      width: s.width,
      height: s.height,
      seed: s.seed,
      tick: s.tick,
      hwm: s.hwm,
      counters: s.counters,
      laws: s.laws,
      kingdoms: s.kingdoms,
      cities: s.cities,
      deadTotal: s.dead.total,
    }),
  );
  bytes(s.tiles.type);
  bytes(s.tiles.top);
  bytes(s.tiles.elevation);
  bytes(s.tiles.fire);
  bytes(s.tiles.owner);
  bytes(s.fireList);
  for (const name of ACTOR_FIELD_NAMES) bytes(s.actors[name]);
  bytes(s.free);
  bytes(s.assetPop);
  bytes(s.rng);
  for (const v of [s.dead.uid, s.dead.born, s.dead.asset, s.dead.kingdom, s.dead.x, s.dead.y]) bytes(v);
  return hash.digest('hex');
}

export class SnapshotError extends Error {}

function fail(message: string): never {
  throw new SnapshotError(message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function int(v: unknown, what: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${what} must be an integer in ${min}..${max}`);
  return v;
}

function typed<C extends abstract new (...args: never[]) => ArrayBufferView>(v: unknown, ctor: C, what: string, length?: number): InstanceType<C> {
  if (!(v instanceof ctor)) fail(`${what} must be a ${ctor.name}`);
  const view = v as InstanceType<C> & { length: number };
  if (length !== undefined && view.length !== length) fail(`${what} has ${view.length} entries, expected ${length}`);
  return view;
}

function checkRecord(v: unknown, what: string, fields: Record<string, 'number' | 'string' | 'boolean'>): void {
  if (!isObject(v)) fail(`${what} must be an object`);
  for (const [field, type] of Object.entries(fields)) {
    if (typeof v[field] !== type) fail(`${what}.${field} must be a ${type}`);
  }
}

const KINGDOM_FIELDS = {
  id: 'number',
  name: 'string',
  race: 'string',
  wild: 'boolean',
  alive: 'boolean',
  color: 'number',
  kingUid: 'number',
  kingSlot: 'number',
  capitalId: 'number',
  createdTick: 'number',
  units: 'number',
  cities: 'number',
  warTarget: 'number',
} as const;
const CITY_FIELDS = {
  id: 'number',
  name: 'string',
  kingdomId: 'number',
  x: 'number',
  y: 'number',
  alive: 'boolean',
  leaderUid: 'number',
  leaderSlot: 'number',
  buildings: 'number',
  units: 'number',
  radius: 'number',
  claimed: 'number',
  food: 'number',
  foundedTick: 'number',
} as const;

/**
 * Checks that `v` is a whole, consistent sandbox snapshot; throws SnapshotError naming the first
 * problem. `deep` also checks every tile and actor value (what a file from outside needs).
 */
export function validateSnapshot(v: unknown, deep = true): SandboxSnapshot {
  if (!isObject(v)) fail('snapshot must be an object');
  if (v.format !== SNAPSHOT_FORMAT) fail(`snapshot format must be '${SNAPSHOT_FORMAT}'`);
  if (v.version !== SNAPSHOT_VERSION) fail(`snapshot version ${String(v.version)} is not supported (expected ${SNAPSHOT_VERSION})`);
  const width = int(v.width, 'width', MIN_ZONES * ZONE_TILES, MAX_ZONES * ZONE_TILES);
  const height = int(v.height, 'height', MIN_ZONES * ZONE_TILES, MAX_ZONES * ZONE_TILES);
  if (width % ZONE_TILES !== 0 || height % ZONE_TILES !== 0) fail(`width and height must be multiples of ${ZONE_TILES}`);
  if (typeof v.seed !== 'number' || !Number.isFinite(v.seed)) fail('seed must be a number');
  int(v.tick, 'tick', 0, Number.MAX_SAFE_INTEGER);
  const tiles = width * height;
  if (!isObject(v.tiles)) fail('tiles must be an object');
  const type = typed(v.tiles.type, Uint8Array, 'tiles.type', tiles);
  const top = typed(v.tiles.top, Uint8Array, 'tiles.top', tiles);
  typed(v.tiles.elevation, Uint8Array, 'tiles.elevation', tiles);
  typed(v.tiles.fire, Uint8Array, 'tiles.fire', tiles);
  const owner = typed(v.tiles.owner, Uint16Array, 'tiles.owner', tiles);
  if (!Array.isArray(v.kingdoms)) fail('kingdoms must be an array');
  if (!Array.isArray(v.cities)) fail('cities must be an array');
  const kingdoms = v.kingdoms as unknown[];
  const cities = v.cities as unknown[];
  // decisions §11: counts a world can reach, so nothing sized by them grows past a real world.
  if (cities.length > MAX_CITY_ID) fail(`cities has ${cities.length} entries, more than ${MAX_CITY_ID}`);
  if (kingdoms.length > MAX_CITY_ID + ACTORS.length) fail(`kingdoms has ${kingdoms.length} entries, more than a world can found`);
  kingdoms.forEach((k, n) => {
    checkRecord(k, `kingdoms[${n}]`, KINGDOM_FIELDS);
    const rec = k as Kingdom;
    if (rec.id !== n + 1) fail(`kingdoms[${n}].id must be ${n + 1}`);
    if (!Array.isArray(rec.wars) || rec.wars.some((id) => !Number.isInteger(id) || id < 1 || id > kingdoms.length)) fail(`kingdoms[${n}].wars is invalid`);
  });
  cities.forEach((c, n) => {
    checkRecord(c, `cities[${n}]`, CITY_FIELDS);
    const rec = c as City;
    if (rec.id !== n + 1) fail(`cities[${n}].id must be ${n + 1}`);
    if (rec.kingdomId < 1 || rec.kingdomId > kingdoms.length) fail(`cities[${n}].kingdomId is invalid`);
    if (rec.x < 0 || rec.y < 0 || rec.x >= width || rec.y >= height) fail(`cities[${n}] lies off the map`);
  });
  for (let i = 0; deep && i < tiles; i++) {
    if (type[i]! >= TILES.length) fail(`tiles.type[${i}] is not a tile`);
    if (top[i]! > TOPS.length) fail(`tiles.top[${i}] is not a top tile`);
    if (owner[i]! > cities.length) fail(`tiles.owner[${i}] names no city`);
  }
  const fireList = typed(v.fireList, Int32Array, 'fireList');
  if (fireList.length > tiles) fail(`fireList has ${fireList.length} entries, more than the ${tiles} tiles`);
  for (const i of fireList) if (i < 0 || i >= tiles) fail('fireList holds a tile off the map');
  const slotEnd = int(v.hwm, 'hwm', 0, HARD_ACTOR_CAP);
  if (!isObject(v.actors)) fail('actors must be an object');
  for (const name of ACTOR_FIELD_NAMES) typed(v.actors[name], ACTOR_FIELDS[name], `actors.${name}`, slotEnd);
  const actors = v.actors as unknown as ActorArrays;
  for (let i = 0; deep && i < slotEnd; i++) {
    if (actors.alive[i] !== 1) continue;
    if (actors.asset[i]! >= ACTORS.length || actors.born[i]! >= ACTORS.length) fail(`actor ${i} has an unknown asset`);
    const x = actors.x[i]!;
    const y = actors.y[i]!;
    if (!(x >= 0 && y >= 0 && x < width && y < height)) fail(`actor ${i} stands off the map`);
    if (actors.kingdom[i]! < 0 || actors.kingdom[i]! > kingdoms.length) fail(`actor ${i} names no kingdom`);
    if (actors.city[i]! < 0 || actors.city[i]! > cities.length) fail(`actor ${i} names no city`);
  }
  const free = typed(v.free, Int32Array, 'free');
  if (free.length > slotEnd) fail(`free has ${free.length} entries, more than the ${slotEnd} slots`);
  for (const slot of free) if (slot < 0 || slot >= slotEnd || actors.alive[slot] === 1) fail('free holds a used slot');
  typed(v.assetPop, Int32Array, 'assetPop', 256);
  typed(v.rng, Uint32Array, 'rng', 4);
  if (!isObject(v.counters)) fail('counters must be an object');
  int(v.counters.nextUid, 'counters.nextUid', 1, 2 ** 31 - 1);
  int(v.counters.lifetime, 'counters.lifetime', 0, Number.MAX_SAFE_INTEGER);
  if (!isObject(v.laws)) fail('laws must be an object');
  for (const law of ['rain_toggle', 'infinite_lifespan', 'world_peace']) if (typeof v.laws[law] !== 'boolean') fail(`laws.${law} must be a boolean`);
  if (!isObject(v.dead)) fail('dead must be an object');
  typed(v.dead.uid, Int32Array, 'dead.uid', DEAD_CAP);
  typed(v.dead.born, Uint8Array, 'dead.born', DEAD_CAP);
  typed(v.dead.asset, Uint8Array, 'dead.asset', DEAD_CAP);
  typed(v.dead.kingdom, Int32Array, 'dead.kingdom', DEAD_CAP);
  typed(v.dead.x, Int16Array, 'dead.x', DEAD_CAP);
  typed(v.dead.y, Int16Array, 'dead.y', DEAD_CAP);
  int(v.dead.total, 'dead.total', 0, Number.MAX_SAFE_INTEGER);
  return v as unknown as SandboxSnapshot;
}
