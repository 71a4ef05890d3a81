// The live world's storage: tiles and actors as structures of typed arrays, plus the small records
// (kingdoms, cities) and counters. Every tile write that matters to a city's accounting goes through
// setTop / setOwner / setTileType here, so building counts and land area never drift.
import { TILE_WATER, TOP, TOP_FLAMMABLE, TILE_FLAMMABLE } from './assets.ts';
import { seedRng, type RngState } from './rng.ts';

export interface ActorArrays {
  alive: Uint8Array;
  asset: Uint8Array;
  /** Asset at birth: names keep their style when a human rises as a zombie. */
  born: Uint8Array;
  hunger: Uint8Array;
  cooldown: Uint8Array;
  uid: Int32Array;
  age: Int32Array;
  maxAge: Int32Array;
  kingdom: Int32Array;
  city: Int32Array;
  hp: Int16Array;
  maxHp: Int16Array;
  plague: Uint16Array;
  blessed: Uint16Array;
  x: Float32Array;
  y: Float32Array;
  vx: Float32Array;
  vy: Float32Array;
}

export type ArrayCtor<A> = { new (length: number): A; readonly BYTES_PER_ELEMENT: number; readonly name: string };
/** A table of typed arrays: each field's array type, in the order saves and the hash walk them. */
export type ArrayFields<T> = { readonly [K in keyof T]-?: ArrayCtor<T[K]> };

/** Field order is the hash and save order. */
export const ACTOR_FIELDS: ArrayFields<ActorArrays> = {
  alive: Uint8Array,
  asset: Uint8Array,
  born: Uint8Array,
  hunger: Uint8Array,
  cooldown: Uint8Array,
  uid: Int32Array,
  age: Int32Array,
  maxAge: Int32Array,
  kingdom: Int32Array,
  city: Int32Array,
  hp: Int16Array,
  maxHp: Int16Array,
  plague: Uint16Array,
  blessed: Uint16Array,
  x: Float32Array,
  y: Float32Array,
  vx: Float32Array,
  vy: Float32Array,
};
export const ACTOR_FIELD_NAMES = Object.keys(ACTOR_FIELDS) as Array<keyof ActorArrays>;

/** One array of each type of `fields`, `length` entries long. */
export function allocArrays<T>(fields: ArrayFields<T>, length: number): T {
  const out = {} as Record<keyof T, unknown>;
  for (const name of Object.keys(fields) as Array<keyof T>) out[name] = new fields[name](length);
  return out as T;
}

export interface Kingdom {
  id: number;
  name: string;
  race: string;
  wild: boolean;
  alive: boolean;
  /** 0xRRGGBB, for borders and the screenshot. */
  color: number;
  kingUid: number;
  kingIndex: number;
  capitalId: number;
  createdTick: number;
  /** Census counts (refreshed every CENSUS_EVERY ticks; reads count afresh). */
  units: number;
  cities: number;
  wars: number[];
  /** City id the soldiers march on while at war (0 = none). */
  warTarget: number;
  /** What its players may still spend under the world's rules (rules.ts; always 0 under the sandbox's). */
  favor: number;
}

export interface City {
  id: number;
  name: string;
  kingdomId: number;
  x: number;
  y: number;
  alive: boolean;
  leaderUid: number;
  leaderIndex: number;
  /** Houses on tiles the city owns (kept exact by setTop/setOwner). */
  buildings: number;
  units: number;
  radius: number;
  /** Radius up to which tiles have been claimed. */
  claimed: number;
  food: number;
  foundedTick: number;
}

/** The toggles a world keeps; the order is the hash order. */
export const LAW_IDS = ['rain_toggle', 'infinite_lifespan', 'world_peace'] as const;
export type LawId = (typeof LAW_IDS)[number];
export type Laws = Record<LawId, boolean>;

export const DEAD_CAP = 1024;
export const HARD_ACTOR_CAP = 262_144;
export const MAX_CITY_ID = 65_535;
export const GRID_SHIFT = 3;
export const BIRTH_QUEUE = 8192;
export const FIRE_EXTINGUISHED = 255;

/** The ring of recent deaths: DEAD_CAP entries of each array. */
export interface DeadArrays {
  uid: Int32Array;
  born: Uint8Array;
  asset: Uint8Array;
  kingdom: Int32Array;
  x: Int16Array;
  y: Int16Array;
}

/** Field order is the hash and save order. */
export const DEAD_FIELDS: ArrayFields<DeadArrays> = {
  uid: Int32Array,
  born: Uint8Array,
  asset: Uint8Array,
  kingdom: Int32Array,
  x: Int16Array,
  y: Int16Array,
};

export interface DeadRing extends DeadArrays {
  /** Deaths ever recorded; the ring holds the last min(total, DEAD_CAP). */
  total: number;
}

export interface World {
  width: number;
  height: number;
  seed: number;
  /** The world's rules: an index in rules.ts' RULES (0: the sandbox's). */
  rules: number;
  tick: number;
  tileType: Uint8Array;
  /** 0 = none, else top catalogue index + 1. */
  topType: Uint8Array;
  elevation: Uint8Array;
  /** 0 = not burning, 1..254 = ticks left, 255 = put out (still listed until the fire pass drops it). */
  fire: Uint8Array;
  /** Owning city id (0 = none). */
  owner: Uint16Array;
  fireList: Int32Array;
  fireCount: number;
  /** Non-water tiles (kept by setTileType). */
  landTiles: number;

  a: ActorArrays;
  capacity: number;
  /** End of the actor indices in use (live or freed): actor loops run over [0, actorEnd), never past it. */
  actorEnd: number;
  /** LIFO stack of freed actor indices; part of the state because it decides where new actors go. */
  free: Int32Array;
  freeCount: number;
  population: number;
  /** Census: live actors per asset. */
  assetPop: Int32Array;

  /** Indexed by id - 1; ids are never reused. */
  kingdoms: Kingdom[];
  cities: City[];
  nextUid: number;
  lifetime: number;
  rng: RngState;
  laws: Laws;
  dead: DeadRing;

  // Runtime only (rebuilt every tick, never saved): the spatial grid and the birth queue. The grid
  // keeps, in cell order, one 16-byte entry per actor: x, y (f32), index, kingdom << 8 | asset (i32),
  // so a neighbour scan reads a few cache lines instead of jumping across the actor arrays.
  gridW: number;
  gridH: number;
  cellStart: Int32Array;
  cellFill: Int32Array;
  /** Each actor's cell, from the grid's first pass (-1 = dead); compaction reuses it as old → new index. */
  cellOf: Int32Array;
  cellF32: Float32Array;
  cellI32: Int32Array;
  /** Second set of actor arrays for compaction (allocated on first use). */
  spare: ActorArrays | null;
  births: Int32Array;
  birthCount: number;
  /** Live civilised kingdoms and live cities, kept by kingdoms.ts (founding checks them per think). */
  civAlive: number;
  citiesAlive: number;
  /** Where the world reports what happens; null: nobody listens (generation, pool threads, tools). */
  events: WorldEventSink | null;
}

export type DeathCause = 'age' | 'hunger' | 'plague' | 'fire' | 'lava' | 'drowning' | 'combat' | 'zombified' | 'power';
export type PeaceReason = 'treaty' | 'world_peace' | 'kingdom_fell';

/**
 * What the simulation tells about the world as it changes. Declared beside the world so the world's
 * storage needs nothing from its reporter (events.ts implements it and turns it into host events).
 */
export interface WorldEventSink {
  actorBorn(w: World, actor: number): void;
  actorDied(w: World, actor: number, cause: DeathCause, powerId: string | null): void;
  cityFounded(city: City): void;
  cityDestroyed(city: City): void;
  cityConquered(city: City, fromKingdom: number): void;
  kingdomFounded(w: World, kingdom: Kingdom, founder: number): void;
  kingdomFell(kingdom: Kingdom): void;
  warDeclared(by: Kingdom, against: Kingdom): void;
  peaceMade(a: Kingdom, b: Kingdom, reason: PeaceReason): void;
}

export function kingdomOf(w: World, id: number): Kingdom | undefined {
  return id > 0 ? w.kingdoms[id - 1] : undefined;
}

export function cityOf(w: World, id: number): City | undefined {
  return id > 0 ? w.cities[id - 1] : undefined;
}

function cellEntries(capacity: number): { cellF32: Float32Array; cellI32: Int32Array } {
  const buffer = new ArrayBuffer(capacity * 16);
  return { cellF32: new Float32Array(buffer), cellI32: new Int32Array(buffer) };
}

export function allocActorArrays(capacity: number): ActorArrays {
  return allocArrays(ACTOR_FIELDS, capacity);
}

export function emptyDeadRing(): DeadRing {
  return { ...allocArrays(DEAD_FIELDS, DEAD_CAP), total: 0 };
}

export function defaultLaws(): Laws {
  return Object.fromEntries(LAW_IDS.map((id) => [id, false])) as Laws;
}

/** An all-ocean world with no actors: generation and snapshot loading fill it in. */
export function createWorld(width: number, height: number, seed: number, actorCapacity = 1024): World {
  const tiles = width * height;
  const capacity = Math.max(1024, actorCapacity);
  const gridW = (width + (1 << GRID_SHIFT) - 1) >> GRID_SHIFT;
  const gridH = (height + (1 << GRID_SHIFT) - 1) >> GRID_SHIFT;
  return {
    width,
    height,
    seed,
    rules: 0,
    tick: 0,
    tileType: new Uint8Array(tiles),
    topType: new Uint8Array(tiles),
    elevation: new Uint8Array(tiles),
    fire: new Uint8Array(tiles),
    owner: new Uint16Array(tiles),
    fireList: new Int32Array(1024),
    fireCount: 0,
    landTiles: 0,
    a: allocActorArrays(capacity),
    capacity,
    actorEnd: 0,
    free: new Int32Array(capacity),
    freeCount: 0,
    population: 0,
    assetPop: new Int32Array(256),
    kingdoms: [],
    cities: [],
    nextUid: 1,
    lifetime: 0,
    rng: seedRng(seed, 7),
    laws: defaultLaws(),
    dead: emptyDeadRing(),
    gridW,
    gridH,
    cellStart: new Int32Array(gridW * gridH + 1),
    cellFill: new Int32Array(gridW * gridH),
    cellOf: new Int32Array(capacity),
    ...cellEntries(capacity),
    spare: null,
    births: new Int32Array(BIRTH_QUEUE),
    birthCount: 0,
    civAlive: 0,
    citiesAlive: 0,
    events: null,
  };
}

/** Grows every actor array to hold at least `needed` actors; false at the hard cap. */
export function ensureActorCapacity(w: World, needed: number): boolean {
  if (needed <= w.capacity) return true;
  if (needed > HARD_ACTOR_CAP) return false;
  let capacity = w.capacity;
  while (capacity < needed) capacity *= 2;
  capacity = Math.min(capacity, HARD_ACTOR_CAP);
  const next = allocActorArrays(capacity);
  for (const name of ACTOR_FIELD_NAMES) (next[name] as { set(src: ArrayLike<number>): void }).set(w.a[name]);
  w.a = next;
  const free = new Int32Array(capacity);
  free.set(w.free.subarray(0, w.freeCount));
  w.free = free;
  w.cellOf = new Int32Array(capacity);
  Object.assign(w, cellEntries(capacity));
  w.spare = null;
  w.capacity = capacity;
  return true;
}

/** An index for a new actor (the most recently freed first), or -1 at the hard cap. */
export function allocActor(w: World): number {
  if (w.freeCount > 0) return w.free[--w.freeCount]!;
  if (w.actorEnd >= w.capacity && !ensureActorCapacity(w, w.actorEnd + 1)) return -1;
  return w.actorEnd++;
}

export function releaseActor(w: World, actor: number): void {
  w.free[w.freeCount++] = actor;
}

export function inBounds(w: World, x: number, y: number): boolean {
  return x >= 0 && y >= 0 && x < w.width && y < w.height;
}

export function setTop(w: World, i: number, top: number): void {
  const old = w.topType[i]!;
  if (old === top) return;
  const owner = w.owner[i]!;
  if (owner !== 0) {
    const city = w.cities[owner - 1];
    if (city) {
      if (old === TOP.house) city.buildings--;
      if (top === TOP.house) city.buildings++;
    }
  }
  w.topType[i] = top;
}

export function setOwner(w: World, i: number, cityId: number): void {
  const old = w.owner[i]!;
  if (old === cityId) return;
  if (w.topType[i] === TOP.house) {
    const from = cityOf(w, old);
    if (from) from.buildings--;
    const to = cityOf(w, cityId);
    if (to) to.buildings++;
  }
  w.owner[i] = cityId;
}

/** Changes a tile's type; water drowns its top, its fire and its ownership. */
export function setTileType(w: World, i: number, type: number): void {
  const old = w.tileType[i]!;
  if (old === type) return;
  const wasWater = TILE_WATER[old] === 1;
  const isWater = TILE_WATER[type] === 1;
  if (wasWater && !isWater) w.landTiles++;
  if (!wasWater && isWater) {
    w.landTiles--;
    setTop(w, i, 0);
    setOwner(w, i, 0);
    extinguish(w, i);
  }
  w.tileType[i] = type;
}

export function isFlammable(w: World, i: number): boolean {
  return TILE_FLAMMABLE[w.tileType[i]!] === 1 || TOP_FLAMMABLE[w.topType[i]!] === 1;
}

export function isBurning(w: World, i: number): boolean {
  const f = w.fire[i]!;
  return f !== 0 && f !== FIRE_EXTINGUISHED;
}

/** Sets a flammable tile burning for `ticks`; false when it cannot burn or already does. */
export function ignite(w: World, i: number, ticks: number): boolean {
  if (w.fire[i] !== 0 || !isFlammable(w, i)) return false;
  if (w.fireCount >= w.fireList.length) {
    if (w.fireList.length >= w.width * w.height) return false;
    const grown = new Int32Array(Math.min(w.fireList.length * 2, w.width * w.height));
    grown.set(w.fireList);
    w.fireList = grown;
  }
  w.fire[i] = Math.max(1, Math.min(254, ticks));
  w.fireList[w.fireCount++] = i;
  return true;
}

export function extinguish(w: World, i: number): void {
  if (w.fire[i] !== 0) w.fire[i] = FIRE_EXTINGUISHED;
}

export function countLand(w: World): number {
  let land = 0;
  const types = w.tileType;
  for (let i = 0; i < types.length; i++) if (TILE_WATER[types[i]!] === 0) land++;
  return land;
}

/** Iterates the tiles of a disc (radius 0 = one tile) clipped to the map. */
export function forDisc(w: World, cx: number, cy: number, radius: number, visit: (i: number, x: number, y: number, d2: number) => void): void {
  const r = Math.max(0, Math.floor(radius));
  const r2 = r * r + r; // a rounder disc than r*r for small radii
  const x0 = Math.max(0, cx - r);
  const x1 = Math.min(w.width - 1, cx + r);
  const y0 = Math.max(0, cy - r);
  const y1 = Math.min(w.height - 1, cy + r);
  for (let y = y0; y <= y1; y++) {
    const dy = y - cy;
    for (let x = x0; x <= x1; x++) {
      const dx = x - cx;
      const d2 = dx * dx + dy * dy;
      if (d2 <= r2) visit(y * w.width + x, x, y, d2);
    }
  }
}

/** Tiles of a disc, on the map or not (paint reports off-map tiles as skipped). */
export function discArea(radius: number): number {
  const r = Math.max(0, Math.floor(radius));
  const r2 = r * r + r;
  let n = 0;
  for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) if (dx * dx + dy * dy <= r2) n++;
  return n;
}

/** A kingdom colour from its id: golden-ratio hues, bright and distinct. */
export function kingdomColor(id: number): number {
  const hue = (id * 0.618033988749895) % 1;
  const [r, g, b] = hsvToRgb(hue, 0.75, 0.95);
  return (r << 16) | (g << 8) | b;
}

function hsvToRgb(h: number, s: number, v: number): [number, number, number] {
  const i = Math.floor(h * 6);
  const f = h * 6 - i;
  const p = v * (1 - s);
  const q = v * (1 - f * s);
  const t = v * (1 - (1 - f) * s);
  const table: Array<[number, number, number]> = [
    [v, t, p],
    [q, v, p],
    [p, v, t],
    [p, q, v],
    [t, p, v],
    [v, p, q],
  ];
  const [r, g, b] = table[i % 6]!;
  return [Math.round(r * 255), Math.round(g * 255), Math.round(b * 255)];
}
