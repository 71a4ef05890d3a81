// The sandbox's asset catalogue: every tile, top tile, actor, power and speed, as data, in one place.
// Ids are the inputs of spawn, paint_tile, invoke_power and set_speed. An asset's index in its
// array is what the world stores in its typed arrays, so entries are only ever appended.

export type Rgb = readonly [number, number, number];

export interface TileAsset {
  id: string;
  category: 'water' | 'land' | 'highland' | 'hazard';
  water: boolean;
  /** Land creatures may walk here (lava is land but they avoid it). */
  walkable: boolean;
  flammable: boolean;
  /** A city may put a building here. */
  buildable: boolean;
  /** What a grazing creature gets from the tile (0 = nothing to eat). */
  food: number;
  /** Walking speed factor. */
  speed: number;
  /** Elevation (0..255) a tile painted to this type gets when it changes class (water/land). */
  paintElevation: number;
  color: Rgb;
}

export const TILES: readonly TileAsset[] = [
  {
    id: 'deep_ocean',
    category: 'water',
    water: true,
    walkable: false,
    flammable: false,
    buildable: false,
    food: 0,
    speed: 1,
    paintElevation: 40,
    color: [22, 52, 110],
  },
  {
    id: 'shallow_water',
    category: 'water',
    water: true,
    walkable: false,
    flammable: false,
    buildable: false,
    food: 0,
    speed: 1,
    paintElevation: 90,
    color: [52, 110, 178],
  },
  {
    id: 'sand',
    category: 'land',
    water: false,
    walkable: true,
    flammable: false,
    buildable: true,
    food: 0,
    speed: 0.9,
    paintElevation: 105,
    color: [222, 206, 140],
  },
  {
    id: 'soil_low',
    category: 'land',
    water: false,
    walkable: true,
    flammable: false,
    buildable: true,
    food: 0,
    speed: 1,
    paintElevation: 120,
    color: [150, 112, 72],
  },
  {
    id: 'soil_high',
    category: 'land',
    water: false,
    walkable: true,
    flammable: false,
    buildable: true,
    food: 1,
    speed: 1,
    paintElevation: 130,
    color: [118, 96, 58],
  },
  {
    id: 'grass',
    category: 'land',
    water: false,
    walkable: true,
    flammable: true,
    buildable: true,
    food: 3,
    speed: 1,
    paintElevation: 130,
    color: [92, 160, 64],
  },
  {
    id: 'forest',
    category: 'land',
    water: false,
    walkable: true,
    flammable: true,
    buildable: true,
    food: 2,
    speed: 0.8,
    paintElevation: 140,
    color: [48, 112, 46],
  },
  {
    id: 'hills',
    category: 'highland',
    water: false,
    walkable: true,
    flammable: false,
    buildable: true,
    food: 0,
    speed: 0.7,
    paintElevation: 185,
    color: [128, 124, 100],
  },
  {
    id: 'mountains',
    category: 'highland',
    water: false,
    walkable: true,
    flammable: false,
    buildable: false,
    food: 0,
    speed: 0.45,
    paintElevation: 215,
    color: [112, 108, 108],
  },
  {
    id: 'snow',
    category: 'highland',
    water: false,
    walkable: true,
    flammable: false,
    buildable: false,
    food: 0,
    speed: 0.6,
    paintElevation: 240,
    color: [236, 240, 246],
  },
  {
    id: 'lava',
    category: 'hazard',
    water: false,
    walkable: false,
    flammable: false,
    buildable: false,
    food: 0,
    speed: 0.5,
    paintElevation: 170,
    color: [226, 82, 24],
  },
  { id: 'ash', category: 'land', water: false, walkable: true, flammable: false, buildable: true, food: 0, speed: 1, paintElevation: 125, color: [86, 80, 78] },
];

export interface TopAsset {
  id: string;
  category: 'vegetation' | 'rock' | 'cover' | 'building';
  flammable: boolean;
  /** Food a grazing creature finds on top of the tile's own food. */
  food: number;
  color: Rgb;
}

// Top tiles are stored as index + 1 (0 = no top), so their ids never clash with tile ids.
export const TOPS: readonly TopAsset[] = [
  { id: 'tree_oak', category: 'vegetation', flammable: true, food: 1, color: [34, 92, 30] },
  { id: 'tree_pine', category: 'vegetation', flammable: true, food: 0, color: [26, 74, 44] },
  { id: 'tree_palm', category: 'vegetation', flammable: true, food: 1, color: [70, 140, 50] },
  { id: 'bush', category: 'vegetation', flammable: true, food: 1, color: [64, 128, 48] },
  { id: 'flowers', category: 'vegetation', flammable: true, food: 1, color: [214, 120, 180] },
  { id: 'cactus', category: 'vegetation', flammable: false, food: 0, color: [96, 150, 70] },
  { id: 'rock', category: 'rock', flammable: false, food: 0, color: [90, 88, 86] },
  { id: 'snow_cover', category: 'cover', flammable: false, food: 0, color: [248, 250, 255] },
  { id: 'house', category: 'building', flammable: true, food: 0, color: [150, 84, 50] },
  { id: 'ruins', category: 'building', flammable: false, food: 0, color: [70, 62, 58] },
];

export type ActorKind = 'civ' | 'animal' | 'monster';
export type Habitat = 'land' | 'water' | 'air';
export type Diet = 'herbivore' | 'carnivore' | 'omnivore' | 'none';

export interface ActorAsset {
  id: string;
  race: string;
  kind: ActorKind;
  habitat: Habitat;
  maxHp: number;
  damage: number;
  /** Tiles per tick on a speed-1 tile. */
  speed: number;
  /** 1..5: carnivores hunt creatures up to their preyMaxSize. */
  size: number;
  diet: Diet;
  preyMaxSize: number;
  lifespanYears: number;
  adultYears: number;
  /** Chance per think (out of 1000) that a willing adult breeds; 0 = never. */
  breedPerMille: number;
  /** Thinks to wait after breeding. */
  breedCooldown: number;
  /** Hunger gained per think (0 = never hungry). */
  hungerRate: number;
  fireproof: boolean;
  color: Rgb;
}

const civ = (id: string, hp: number, dmg: number, speed: number, life: number, adult: number, color: Rgb): ActorAsset => ({
  id,
  race: id,
  kind: 'civ',
  habitat: 'land',
  maxHp: hp,
  damage: dmg,
  speed,
  size: 3,
  diet: 'omnivore',
  preyMaxSize: 2,
  lifespanYears: life,
  adultYears: adult,
  breedPerMille: 45,
  breedCooldown: 50,
  hungerRate: 3,
  fireproof: false,
  color,
});

export const ACTORS: readonly ActorAsset[] = [
  civ('human', 100, 12, 0.1, 70, 14, [240, 220, 200]),
  civ('elf', 90, 11, 0.11, 150, 20, [180, 240, 160]),
  civ('orc', 130, 15, 0.1, 55, 10, [120, 170, 80]),
  civ('dwarf', 140, 13, 0.085, 110, 18, [210, 150, 110]),
  {
    id: 'sheep',
    race: 'sheep',
    kind: 'animal',
    habitat: 'land',
    maxHp: 40,
    damage: 2,
    speed: 0.07,
    size: 2,
    diet: 'herbivore',
    preyMaxSize: 0,
    lifespanYears: 14,
    adultYears: 1,
    breedPerMille: 60,
    breedCooldown: 40,
    hungerRate: 4,
    fireproof: false,
    color: [250, 250, 250],
  },
  {
    id: 'cow',
    race: 'cow',
    kind: 'animal',
    habitat: 'land',
    maxHp: 70,
    damage: 4,
    speed: 0.06,
    size: 3,
    diet: 'herbivore',
    preyMaxSize: 0,
    lifespanYears: 18,
    adultYears: 2,
    breedPerMille: 45,
    breedCooldown: 50,
    hungerRate: 4,
    fireproof: false,
    color: [120, 80, 60],
  },
  {
    id: 'chicken',
    race: 'chicken',
    kind: 'animal',
    habitat: 'land',
    maxHp: 15,
    damage: 1,
    speed: 0.08,
    size: 1,
    diet: 'herbivore',
    preyMaxSize: 0,
    lifespanYears: 8,
    adultYears: 1,
    breedPerMille: 80,
    breedCooldown: 30,
    hungerRate: 4,
    fireproof: false,
    color: [255, 240, 120],
  },
  {
    id: 'rabbit',
    race: 'rabbit',
    kind: 'animal',
    habitat: 'land',
    maxHp: 15,
    damage: 1,
    speed: 0.14,
    size: 1,
    diet: 'herbivore',
    preyMaxSize: 0,
    lifespanYears: 8,
    adultYears: 1,
    breedPerMille: 90,
    breedCooldown: 30,
    hungerRate: 5,
    fireproof: false,
    color: [200, 190, 170],
  },
  {
    id: 'cat',
    race: 'cat',
    kind: 'animal',
    habitat: 'land',
    maxHp: 25,
    damage: 5,
    speed: 0.12,
    size: 1,
    diet: 'carnivore',
    preyMaxSize: 1,
    lifespanYears: 15,
    adultYears: 1,
    breedPerMille: 30,
    breedCooldown: 50,
    hungerRate: 2,
    fireproof: false,
    color: [240, 160, 60],
  },
  {
    id: 'dog',
    race: 'dog',
    kind: 'animal',
    habitat: 'land',
    maxHp: 50,
    damage: 8,
    speed: 0.12,
    size: 2,
    diet: 'carnivore',
    preyMaxSize: 1,
    lifespanYears: 13,
    adultYears: 1,
    breedPerMille: 30,
    breedCooldown: 50,
    hungerRate: 2,
    fireproof: false,
    color: [170, 120, 70],
  },
  {
    id: 'fox',
    race: 'fox',
    kind: 'animal',
    habitat: 'land',
    maxHp: 30,
    damage: 6,
    speed: 0.13,
    size: 2,
    diet: 'carnivore',
    preyMaxSize: 1,
    lifespanYears: 10,
    adultYears: 1,
    breedPerMille: 30,
    breedCooldown: 50,
    hungerRate: 2,
    fireproof: false,
    color: [230, 110, 30],
  },
  {
    id: 'wolf',
    race: 'wolf',
    kind: 'animal',
    habitat: 'land',
    maxHp: 70,
    damage: 12,
    speed: 0.13,
    size: 3,
    diet: 'carnivore',
    preyMaxSize: 3,
    lifespanYears: 14,
    adultYears: 2,
    breedPerMille: 20,
    breedCooldown: 60,
    hungerRate: 2,
    fireproof: false,
    color: [140, 140, 150],
  },
  {
    id: 'bear',
    race: 'bear',
    kind: 'animal',
    habitat: 'land',
    maxHp: 180,
    damage: 22,
    speed: 0.09,
    size: 4,
    diet: 'carnivore',
    preyMaxSize: 3,
    lifespanYears: 30,
    adultYears: 3,
    breedPerMille: 12,
    breedCooldown: 80,
    hungerRate: 1,
    fireproof: false,
    color: [100, 70, 40],
  },
  {
    id: 'fish',
    race: 'fish',
    kind: 'animal',
    habitat: 'water',
    maxHp: 10,
    damage: 0,
    speed: 0.09,
    size: 1,
    diet: 'none',
    preyMaxSize: 0,
    lifespanYears: 6,
    adultYears: 1,
    breedPerMille: 50,
    breedCooldown: 40,
    hungerRate: 0,
    fireproof: false,
    color: [160, 210, 240],
  },
  {
    id: 'zombie',
    race: 'undead',
    kind: 'monster',
    habitat: 'land',
    maxHp: 80,
    damage: 10,
    speed: 0.06,
    size: 3,
    diet: 'none',
    preyMaxSize: 0,
    lifespanYears: 40,
    adultYears: 0,
    breedPerMille: 0,
    breedCooldown: 0,
    hungerRate: 0,
    fireproof: false,
    color: [90, 160, 90],
  },
  {
    id: 'skeleton',
    race: 'undead',
    kind: 'monster',
    habitat: 'land',
    maxHp: 60,
    damage: 12,
    speed: 0.08,
    size: 3,
    diet: 'none',
    preyMaxSize: 0,
    lifespanYears: 60,
    adultYears: 0,
    breedPerMille: 0,
    breedCooldown: 0,
    hungerRate: 0,
    fireproof: false,
    color: [230, 230, 210],
  },
  {
    id: 'dragon',
    race: 'dragon',
    kind: 'monster',
    habitat: 'air',
    maxHp: 1500,
    damage: 60,
    speed: 0.2,
    size: 5,
    diet: 'none',
    preyMaxSize: 0,
    lifespanYears: 500,
    adultYears: 0,
    breedPerMille: 0,
    breedCooldown: 0,
    hungerRate: 0,
    fireproof: true,
    color: [200, 30, 30],
  },
  {
    id: 'demon',
    race: 'demon',
    kind: 'monster',
    habitat: 'land',
    maxHp: 400,
    damage: 35,
    speed: 0.1,
    size: 4,
    diet: 'none',
    preyMaxSize: 0,
    lifespanYears: 300,
    adultYears: 0,
    breedPerMille: 0,
    breedCooldown: 0,
    hungerRate: 0,
    fireproof: true,
    color: [150, 20, 60],
  },
];

export type PowerFamily = 'spawn' | 'strike' | 'weather' | 'status' | 'terrain' | 'law';

export interface PowerAsset {
  id: string;
  family: PowerFamily;
  description: string;
  /** invoke_power accepts `radius` (a brush); otherwise the power has a fixed size. */
  supportsRadius: boolean;
  /** A switch: one call flips it (pulses make no sense). */
  isToggle: boolean;
  /** Radius used when the caller gives none (brush powers) or always (fixed powers). */
  radius: number;
  /** For spawn powers: the actor asset it drops. */
  actor?: string;
}

const strike = (id: string, radius: number, description: string): PowerAsset => ({
  id,
  family: 'strike',
  description,
  supportsRadius: false,
  isToggle: false,
  radius,
});
const brush = (id: string, family: PowerFamily, radius: number, description: string): PowerAsset => ({
  id,
  family,
  description,
  supportsRadius: true,
  isToggle: false,
  radius,
});
const toggle = (id: string, description: string): PowerAsset => ({ id, family: 'law', description, supportsRadius: false, isToggle: true, radius: 0 });

export const POWERS: readonly PowerAsset[] = [
  ...ACTORS.map((a): PowerAsset => ({
    id: `spawn_${a.id}`,
    family: 'spawn',
    description: `Drop one ${a.id}`,
    supportsRadius: false,
    isToggle: false,
    radius: 0,
    actor: a.id,
  })),
  strike('lightning', 2, 'Strikes creatures near the point and sets it on fire'),
  strike('meteorite', 5, 'A crater of lava and ash; everything inside dies'),
  strike('bomb', 4, 'Blows up creatures, buildings and trees'),
  strike('atomic_bomb', 16, 'A very large bomb'),
  brush('fire', 'strike', 2, 'Sets flammable tiles and creatures on fire'),
  brush('earthquake', 'strike', 10, 'Shakes the ground: buildings fall, mountains crumble, creatures are hurt'),
  brush('rain', 'weather', 5, 'Puts out fires, cools lava, greens the soil'),
  brush('blessing', 'status', 3, 'Heals creatures, cures plague, makes them stronger for a while'),
  brush('plague', 'status', 3, 'Infects living creatures with a contagious sickness'),
  brush('water_bucket', 'terrain', 2, 'Pours shallow water'),
  brush('lava_bucket', 'terrain', 2, 'Pours lava'),
  brush('fertilizer', 'terrain', 3, 'Turns soil and ash into grass'),
  brush('plant_forest', 'terrain', 3, 'Plants trees on green land'),
  brush('raise_land', 'terrain', 3, 'Lifts the ground: water becomes sand, land becomes hills'),
  brush('lower_land', 'terrain', 3, 'Sinks the ground: hills become land, land becomes water'),
  toggle('rain_toggle', 'World-wide rain: fires go out, soil greens (on/off)'),
  toggle('infinite_lifespan', 'Creatures no longer die of old age (on/off)'),
  toggle('world_peace', 'Ends every war and prevents new ones (on/off)'),
];

export interface SpeedAsset {
  id: string;
  multiplier: number;
}

export const SPEEDS: readonly SpeedAsset[] = [
  { id: 'slow_mo', multiplier: 0.5 },
  { id: 'x1', multiplier: 1 },
  { id: 'x2', multiplier: 2 },
  { id: 'x3', multiplier: 3 },
  { id: 'x4', multiplier: 4 },
  { id: 'x5', multiplier: 5 },
  { id: 'x10', multiplier: 10 },
  { id: 'x15', multiplier: 15 },
  { id: 'x20', multiplier: 20 },
  { id: 'x40', multiplier: 40 },
];

// --- Lookups ---------------------------------------------------------------------------------

function indexOf<T extends { id: string }>(list: readonly T[]): ReadonlyMap<string, number> {
  return new Map(list.map((item, i) => [item.id, i]));
}

export const TILE_INDEX = indexOf(TILES);
/** Top ids map to their stored value (catalogue index + 1). */
export const TOP_INDEX: ReadonlyMap<string, number> = new Map(TOPS.map((top, i) => [top.id, i + 1]));
export const ACTOR_INDEX = indexOf(ACTORS);
export const POWER_INDEX = indexOf(POWERS);
export const SPEED_INDEX = indexOf(SPEEDS);

export const TILE_IDS: readonly string[] = TILES.map((t) => t.id);
export const TOP_IDS: readonly string[] = TOPS.map((t) => t.id);
export const ACTOR_IDS: readonly string[] = ACTORS.map((a) => a.id);
export const POWER_IDS: readonly string[] = POWERS.map((p) => p.id);
export const SPEED_IDS: readonly string[] = SPEEDS.map((s) => s.id);

function mustIndex(map: ReadonlyMap<string, number>, id: string): number {
  const index = map.get(id);
  if (index === undefined) throw new Error(`asset '${id}' missing from the catalogue`);
  return index;
}

// Named indices for the systems (checked against the catalogue at import).
export const T = {
  deepOcean: mustIndex(TILE_INDEX, 'deep_ocean'),
  shallow: mustIndex(TILE_INDEX, 'shallow_water'),
  sand: mustIndex(TILE_INDEX, 'sand'),
  soilLow: mustIndex(TILE_INDEX, 'soil_low'),
  soilHigh: mustIndex(TILE_INDEX, 'soil_high'),
  grass: mustIndex(TILE_INDEX, 'grass'),
  forest: mustIndex(TILE_INDEX, 'forest'),
  hills: mustIndex(TILE_INDEX, 'hills'),
  mountains: mustIndex(TILE_INDEX, 'mountains'),
  snow: mustIndex(TILE_INDEX, 'snow'),
  lava: mustIndex(TILE_INDEX, 'lava'),
  ash: mustIndex(TILE_INDEX, 'ash'),
} as const;

export const TOP = {
  none: 0,
  oak: mustIndex(TOP_INDEX, 'tree_oak'),
  pine: mustIndex(TOP_INDEX, 'tree_pine'),
  palm: mustIndex(TOP_INDEX, 'tree_palm'),
  bush: mustIndex(TOP_INDEX, 'bush'),
  flowers: mustIndex(TOP_INDEX, 'flowers'),
  cactus: mustIndex(TOP_INDEX, 'cactus'),
  rock: mustIndex(TOP_INDEX, 'rock'),
  snowCover: mustIndex(TOP_INDEX, 'snow_cover'),
  house: mustIndex(TOP_INDEX, 'house'),
  ruins: mustIndex(TOP_INDEX, 'ruins'),
} as const;

export const A = {
  human: mustIndex(ACTOR_INDEX, 'human'),
  elf: mustIndex(ACTOR_INDEX, 'elf'),
  orc: mustIndex(ACTOR_INDEX, 'orc'),
  dwarf: mustIndex(ACTOR_INDEX, 'dwarf'),
  sheep: mustIndex(ACTOR_INDEX, 'sheep'),
  zombie: mustIndex(ACTOR_INDEX, 'zombie'),
  fish: mustIndex(ACTOR_INDEX, 'fish'),
  dragon: mustIndex(ACTOR_INDEX, 'dragon'),
  demon: mustIndex(ACTOR_INDEX, 'demon'),
} as const;

export const CIV_ACTORS: readonly number[] = ACTORS.flatMap((a, i) => (a.kind === 'civ' ? [i] : []));

// Flat tables for the hot loops (typed arrays index faster than objects).
const tileTable = (f: (t: TileAsset) => number) => Uint8Array.from(TILES, f);
export const TILE_WATER = tileTable((t) => (t.water ? 1 : 0));
export const TILE_WALKABLE = tileTable((t) => (t.walkable ? 1 : 0));
export const TILE_FLAMMABLE = tileTable((t) => (t.flammable ? 1 : 0));
export const TILE_BUILDABLE = tileTable((t) => (t.buildable ? 1 : 0));
export const TILE_FOOD = tileTable((t) => t.food);
export const TILE_SPEED = Float32Array.from(TILES, (t) => t.speed);

// Indexed by stored top value (0 = none).
export const TOP_FLAMMABLE = Uint8Array.from([0, ...TOPS.map((t) => (t.flammable ? 1 : 0))]);
export const TOP_FOOD = Uint8Array.from([0, ...TOPS.map((t) => t.food)]);
export const TOP_VEGETATION = Uint8Array.from([0, ...TOPS.map((t) => (t.category === 'vegetation' ? 1 : 0))]);

export const HABITAT_LAND = 0;
export const HABITAT_WATER = 1;
export const HABITAT_AIR = 2;
const actorTable = (f: (a: ActorAsset) => number) => Float32Array.from(ACTORS, f);
export const ACTOR_HABITAT = Uint8Array.from(ACTORS, (a) => (a.habitat === 'land' ? HABITAT_LAND : a.habitat === 'water' ? HABITAT_WATER : HABITAT_AIR));
export const ACTOR_SPEED = actorTable((a) => a.speed);
export const ACTOR_DAMAGE = actorTable((a) => a.damage);
export const ACTOR_FIREPROOF = Uint8Array.from(ACTORS, (a) => (a.fireproof ? 1 : 0));
export const ACTOR_KIND_CIV = 0;
export const ACTOR_KIND_ANIMAL = 1;
export const ACTOR_KIND_MONSTER = 2;
export const ACTOR_KIND = Uint8Array.from(ACTORS, (a) => (a.kind === 'civ' ? ACTOR_KIND_CIV : a.kind === 'animal' ? ACTOR_KIND_ANIMAL : ACTOR_KIND_MONSTER));
export const ACTOR_CARNIVORE = Uint8Array.from(ACTORS, (a) => (a.diet === 'carnivore' ? 1 : 0));
export const ACTOR_GRAZER = Uint8Array.from(ACTORS, (a) => (a.diet === 'herbivore' || a.diet === 'omnivore' ? 1 : 0));
export const ACTOR_SIZE = Uint8Array.from(ACTORS, (a) => a.size);
export const ACTOR_PREY_MAX = Uint8Array.from(ACTORS, (a) => a.preyMaxSize);
export const ACTOR_HUNGER_RATE = Uint8Array.from(ACTORS, (a) => a.hungerRate);
/** Race as a small integer, so "same race" is one comparison in the hot loop. */
const raceNames = [...new Set(ACTORS.map((a) => a.race))];
export const ACTOR_RACE = Uint8Array.from(ACTORS, (a) => raceNames.indexOf(a.race));

/** Can an actor of this asset stand on this tile type? (spawn and movement) */
export function canStand(actor: number, tile: number): boolean {
  const habitat = ACTOR_HABITAT[actor];
  if (habitat === HABITAT_AIR) return true;
  if (habitat === HABITAT_WATER) return TILE_WATER[tile] === 1;
  return TILE_WATER[tile] === 0;
}

/** One simulation tick at speed x1 lasts this long (20 ticks a second). */
export const TICK_MS = 50;
/** Ticks in a year of actor age. */
export const YEAR_TICKS = 240;
/** Tiles a zone side. */
export const ZONE_TILES = 64;
export const MIN_ZONES = 2;
export const MAX_ZONES = 16;
