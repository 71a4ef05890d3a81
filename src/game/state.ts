// The world's state, listed once: every field of the live World and of the interface state (Ui),
// each with its kind (state-kinds.ts). A save and its loading (snapshot.ts), a savepoint's taking,
// restoring and bytes (savepoint.ts), the checks of a save from outside (snapshot.ts, and the bounds
// of a save file in save-format.ts) and the hash (state-hash.ts) all walk this table and name no
// field themselves. A field of World or Ui left out of it is a compile error, and
// test/game/state.test.ts changes every field in turn. A new field is its type (World or Ui), its
// first value (createWorld or createUi) and one line here; a saved number or record field names its
// value for the saves made before it (`absent`), so they still load.
//
// The order is the hash's (its record of small values first, then its bulk, each in this order) and
// the checks' (a field's check reads the fields above it: the sizes first, kingdoms before cities).
import { ACTORS, MIN_ZONES, MAX_ZONES, SPEED_INDEX, TILES, TOPS, ZONE_TILES } from './assets.ts';
import { liveCities, liveCivKingdoms } from './kingdoms.ts';
import { RULES } from './rules.ts';
import {
  arrayGroup,
  counted,
  deadRing,
  fail,
  fixed,
  kept,
  laws,
  layer,
  lengthOf,
  listed,
  MAX_TILES,
  records,
  runtime,
  scalar,
  tilesOf,
  type CountedField,
  type InterfaceField,
  type RecordFields,
  type RuntimeField,
  type SaveData,
  type SavedField,
} from './state-kinds.ts';
import { changeSpeed, type Ui } from './ui.ts';
import { ACTOR_FIELDS, countLand, ensureActorCapacity, HARD_ACTOR_CAP, MAX_CITY_ID, type ActorArrays, type City, type Kingdom, type World } from './world.ts';

/** Every field of a kingdom, in the order saves and the hash walk them. */
export const KINGDOM_FIELDS = {
  id: 'num',
  name: 'str',
  race: 'str',
  wild: 'bool',
  alive: 'bool',
  color: 'num',
  kingUid: 'num',
  kingIndex: { kind: 'num', inFile: 'kingSlot' },
  capitalId: 'num',
  createdTick: 'num',
  units: 'num',
  cities: 'num',
  wars: 'kingdomIds',
  warTarget: 'num',
  favor: { kind: 'num', absent: 0 },
} as const satisfies RecordFields<Kingdom>;

/** Every field of a city, in the order saves and the hash walk them. */
export const CITY_FIELDS = {
  id: 'num',
  name: 'str',
  kingdomId: 'num',
  x: 'num',
  y: 'num',
  alive: 'bool',
  leaderUid: 'num',
  leaderIndex: { kind: 'num', inFile: 'leaderSlot' },
  buildings: 'num',
  units: 'num',
  radius: 'num',
  claimed: 'num',
  food: 'num',
  foundedTick: 'num',
} as const satisfies RecordFields<City>;

/** Where a save keeps the end of the live actor indices (the save file's name for it). */
const ACTOR_END_AT = 'hwm';
const SIDE = { min: MIN_ZONES * ZONE_TILES, max: MAX_ZONES * ZONE_TILES, multipleOf: ZONE_TILES };
const COUNT = { min: 0, max: Number.MAX_SAFE_INTEGER };

const kingdomsOf = (s: SaveData) => (s.kingdoms as unknown[]).length;
const citiesOf = (s: SaveData) => (s.cities as unknown[]).length;
const actorEndOf = (s: SaveData) => s[ACTOR_END_AT] as number;
const onMap = (s: SaveData, x: number, y: number) => x >= 0 && y >= 0 && x < (s.width as number) && y < (s.height as number);

function countPopulation(w: World): number {
  let population = 0;
  for (let i = 0; i < w.actorEnd; i++) if (w.a.alive[i] === 1) population++;
  return population;
}

function checkFireList(list: Int32Array, s: SaveData): void {
  const tiles = tilesOf(s);
  if (list.length > tiles) fail(`fireList has ${list.length} entries, more than the ${tiles} tiles`);
  for (const i of list) if (i < 0 || i >= tiles) fail('fireList holds a tile off the map');
}

function checkFree(free: Int32Array, s: SaveData): void {
  const end = actorEndOf(s);
  const alive = (s.actors as ActorArrays).alive;
  if (free.length > end) fail(`free has ${free.length} entries, more than the ${end} actor indices`);
  for (const i of free) if (i < 0 || i >= end || alive[i] === 1) fail('free holds the index of a live actor');
}

function checkActors(a: ActorArrays, s: SaveData): void {
  const kingdoms = kingdomsOf(s);
  const cities = citiesOf(s);
  for (let i = 0; i < actorEndOf(s); i++) {
    if (a.alive[i] !== 1) continue;
    if (a.asset[i]! >= ACTORS.length || a.born[i]! >= ACTORS.length) fail(`actor ${i} has an unknown asset`);
    if (!onMap(s, a.x[i]!, a.y[i]!)) fail(`actor ${i} stands off the map`);
    if (a.kingdom[i]! < 0 || a.kingdom[i]! > kingdoms) fail(`actor ${i} names no kingdom`);
    if (a.city[i]! < 0 || a.city[i]! > cities) fail(`actor ${i} names no city`);
  }
}

function checkCity(c: City, what: string, s: SaveData): void {
  if (c.kingdomId < 1 || c.kingdomId > kingdomsOf(s)) fail(`${what}.kingdomId is invalid`);
  if (!onMap(s, c.x, c.y)) fail(`${what} lies off the map`);
}

/** A field of the world: saved, counted as it runs, or not state at all. */
type WorldEntry<V> = SavedField<V> | ([V] extends [number] ? CountedField : never) | RuntimeField;
/** Every key of World and of Ui, each with a kind that fits its type. */
type StateTable = { readonly [K in keyof World]-?: WorldEntry<World[K]> } & { readonly [K in keyof Ui]-?: InterfaceField<Ui[K]> | RuntimeField };

export const STATE = {
  // The sizes and counters (the hash's record, with the small records below).
  width: scalar('width', SIDE),
  height: scalar('height', SIDE),
  seed: scalar('seed', 'finite'),
  rules: scalar('rules', { min: 0, max: RULES.length - 1, absent: 0 }),
  tick: scalar('tick', COUNT),
  actorEnd: scalar(ACTOR_END_AT, { min: 0, max: HARD_ACTOR_CAP }),
  freeCount: lengthOf('free'),
  fireCount: lengthOf('fireList'),
  nextUid: scalar('counters.nextUid', { min: 1, max: 2 ** 31 - 1 }),
  lifetime: scalar('counters.lifetime', COUNT),
  population: counted(countPopulation),
  landTiles: counted(countLand),
  civAlive: counted(liveCivKingdoms),
  citiesAlive: counted(liveCities),
  // The birth queue fills and empties within a tick: between two commands it is empty.
  birthCount: counted(() => 0),

  // The bulk.
  rng: fixed('rng', Uint32Array, 4),
  tileType: layer('tiles.type', Uint8Array, { max: () => TILES.length - 1, otherwise: 'is not a tile' }),
  topType: layer('tiles.top', Uint8Array, { max: () => TOPS.length, otherwise: 'is not a top tile' }),
  elevation: layer('tiles.elevation', Uint8Array),
  fire: layer('tiles.fire', Uint8Array),
  owner: layer('tiles.owner', Uint16Array, { max: citiesOf, otherwise: 'names no city' }),
  fireList: listed('fireList', Int32Array, 'fireCount', MAX_TILES, checkFireList),
  a: arrayGroup('actors', ACTOR_FIELDS, ACTOR_END_AT, (w) => w.actorEnd, HARD_ACTOR_CAP, ensureActorCapacity, checkActors),
  free: listed('free', Int32Array, 'freeCount', HARD_ACTOR_CAP, checkFree),
  assetPop: fixed('assetPop', Int32Array, 256),
  dead: deadRing('dead'),

  // The small records, and the interface a savepoint keeps.
  laws: laws('laws'),
  speedId: kept<string>((v, out) => out.str(v), {
    put: (ui, v) => void changeSpeed(ui, v),
    refuse: (v) => (SPEED_INDEX.get(v) === undefined ? `the savepoint names an unknown speed '${String(v)}'` : null),
  }),
  configPaused: kept<boolean>((v, out) => out.bool(v)),
  window: kept<string | null>((v, out) => out.str(v)),
  kingdoms: records<'kingdoms', Kingdom>('kingdoms', KINGDOM_FIELDS, MAX_CITY_ID + ACTORS.length),
  cities: records('cities', CITY_FIELDS, MAX_CITY_ID, checkCity),
  // Kept, never hashed: the wall-clock leftovers of realtime frames.
  pendingMs: kept<number>(null),

  // Not state.
  capacity: runtime('the length of the actor arrays, grown on demand'),
  multiplier: runtime('follows speedId (put back with it)'),
  worldLoading: runtime('a world swap in progress, not part of any world'),
  gridW: runtime('the spatial grid, rebuilt at the start of every tick'),
  gridH: runtime('the spatial grid'),
  cellStart: runtime('the spatial grid'),
  cellFill: runtime('the spatial grid'),
  cellOf: runtime('the spatial grid'),
  cellF32: runtime('the spatial grid'),
  cellI32: runtime('the spatial grid'),
  spare: runtime('scratch arrays of the compaction'),
  births: runtime('the birth queue, read only up to birthCount'),
  events: runtime('where the world reports what happens'),
} satisfies StateTable;

// World and Ui share the table, so no key may be in both.
const disjoint: [Extract<keyof World, keyof Ui>] extends [never] ? true : never = true;
void disjoint;

export type StateKey = keyof typeof STATE;
type Table = typeof STATE;
type KeysOf<Family> = { [K in StateKey]: Table[K] extends Family ? K : never }[StateKey];
/** The counts a savepoint keeps as they stood. */
export type CountedKey = KeysOf<CountedField>;
/** The interface state a savepoint keeps. */
export type KeptUiKey = KeysOf<InterfaceField<never>>;

type Nest<P extends string, S> = P extends `${infer G}.${infer R}` ? { [K in G]: Nest<R, S> } : { [K in P]: S };
type SavedPart<F> = F extends { readonly at: infer P extends string; save(v: never, w: never): infer S } ? Nest<P, S> : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** What a save holds of the world: each saved field at its place. */
export type SavedState = Intersection<{ [K in StateKey]: SavedPart<Table[K]> }[StateKey]>;

type Entry = readonly [key: string, field: Table[StateKey]];
const ENTRIES = Object.entries(STATE) as unknown as Entry[];
const ofFamily = <F>(family: string) => ENTRIES.filter(([, f]) => f.family === family) as unknown as Array<readonly [string, F]>;

/** The table's saved, counted and interface fields, each list in table order. */
export const SAVED_FIELDS = ofFamily<SavedField<unknown>>('saved');
export const COUNTED_FIELDS = ofFamily<CountedField>('counted') as Array<readonly [CountedKey, CountedField]>;
export const INTERFACE_FIELDS = ofFamily<InterfaceField<unknown>>('interface') as Array<readonly [KeptUiKey, InterfaceField<unknown>]>;
/** Every field in table order (the hash walks them in this order). */
export const STATE_FIELDS: readonly Entry[] = ENTRIES;

/** A field's value in the world (or the interface), by the table's key. */
export function valueOf(holder: World | Ui, key: string): unknown {
  return (holder as unknown as Record<string, unknown>)[key];
}

export function setValue(holder: World | Ui, key: string, v: unknown): void {
  (holder as unknown as Record<string, unknown>)[key] = v;
}
