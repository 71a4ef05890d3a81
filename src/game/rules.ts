// The world's rules: `sandbox` (everything free, as the sandbox always was), `grow` and `duel`. A
// world is generated under one of them and keeps it (it is part of its state, so a savepoint, a
// rewind, a save and a replay keep it too). Under grow and duel every kingdom holds a budget of
// favor, refilled by its cities and their land, and each action a kingdom's player takes is priced
// from it; food comes from the land, and a blessing makes people breed faster. Under duel two
// kingdoms start close, at war, and a kingdom left without a city falls.
import { ACTOR_INDEX, ACTOR_KIND, ACTOR_KIND_CIV, POWER_INDEX, POWERS, TILE_FOOD } from './assets.ts';
import { discArea, forDisc, type City, type Kingdom, type World } from './world.ts';

export const RULES_IDS = ['sandbox', 'grow', 'duel'] as const;
export type RulesId = (typeof RULES_IDS)[number];

/** What a kingdom's budget is under one set of rules. */
export interface Favor {
  /** What a kingdom holds when it is founded. */
  start: number;
  /** What it can hold: income past it is lost, so saving up is not free. */
  cap: number;
  /** Each live city, at its city tick (every 32 ticks): base + one per `perTiles` tiles of its land. */
  base: number;
  perTiles: number;
}

/** Prices in favor, per call (per pulse, per spawned actor). */
export interface Prices {
  /** A civilised newborn: +1 now, never grown up within an episode of a few thousand ticks. */
  child: number;
  /** A civilised adult: it breeds, fights and founds. */
  adult: number;
  /** Any other creature (an animal, a monster), young or grown. */
  creature: number;
  /** Brush and strike powers at their default radius; a wider brush costs in proportion to its area. */
  powers: Readonly<Record<string, number>>;
  /** A power missing from `powers` (the world-wide laws included). */
  otherPower: number;
  /** paint_tile: one favor per this many tiles of the disc (rounded up). */
  paintTilesPerFavor: number;
}

export interface Rules {
  id: RulesId;
  description: string;
  /** null: no budget, every action free. */
  favor: Favor | null;
  prices: Prices | null;
  /** A city's food each city tick: 1 + its fertile land / this (null: 1 + 0.35 a unit, the sandbox's). */
  fertilePerFood: number | null;
  /** A blessed civilised adult breeds this many times as often. */
  blessedBreeding: number;
  /** Two kingdoms only, the first civilised race for both, capitals this far apart (tiles); null: the sandbox's placement. */
  duel: { minApart: number; maxApart: number } | null;
  /** Chance per kingdom check (‰) that meeting kingdoms go to war, and that a war ends; null: the sandbox's. */
  war: { declare: number; peace: number } | null;
  /** A kingdom with no city left falls at the next census, even with people left (they become nomads). */
  fallWithoutCities: boolean;
}

const SHARED_PRICES = {
  child: 4,
  adult: 10,
  creature: 10,
  powers: { fertilizer: 3, blessing: 6, lightning: 8, plague: 12 },
  otherPower: 20,
  paintTilesPerFavor: 8,
} satisfies Prices;

const SHARED_FAVOR = { start: 20, cap: 60, base: 1, perTiles: 100 } satisfies Favor;

export const RULES: readonly Rules[] = [
  {
    id: 'sandbox',
    description: 'no budget: every action is free; food from the people; kingdoms meet, fight and make peace by chance',
    favor: null,
    prices: null,
    fertilePerFood: null,
    blessedBreeding: 1,
    duel: null,
    war: null,
    fallWithoutCities: false,
  },
  {
    id: 'grow',
    description:
      'a budget of favor per kingdom, refilled by its cities and their land, pays for every action of its players; ' +
      "food comes from the cities' fertile land; a blessed adult breeds twice as often",
    favor: SHARED_FAVOR,
    prices: SHARED_PRICES,
    fertilePerFood: 40,
    blessedBreeding: 2,
    duel: null,
    war: null,
    fallWithoutCities: false,
  },
  {
    id: 'duel',
    description:
      "grow's budget, food and blessing, with two kingdoms of one race whose capitals start 28 to 36 tiles apart, at war " +
      'from the start and for good; a kingdom left without a city falls',
    favor: SHARED_FAVOR,
    prices: SHARED_PRICES,
    fertilePerFood: 40,
    blessedBreeding: 2,
    duel: { minApart: 28, maxApart: 36 },
    war: { declare: 1000, peace: 0 },
    fallWithoutCities: true,
  },
];

export const RULES_INDEX: ReadonlyMap<string, number> = new Map(RULES.map((r, i) => [r.id, i]));

export function rulesOf(w: World): Rules {
  return RULES[w.rules] ?? RULES[0]!;
}

/** A city's land: the tiles it owns, and their food value (grass 3, forest 2, high soil 1). */
export function cityLand(w: World, city: City): { tiles: number; fertile: number } {
  let tiles = 0;
  let fertile = 0;
  forDisc(w, city.x, city.y, Math.max(city.claimed, city.radius) + 1, (i) => {
    if (w.owner[i] !== city.id) return;
    tiles++;
    fertile += TILE_FOOD[w.tileType[i]!]!;
  });
  return { tiles, fertile };
}

/** What one city adds to its kingdom's favor at its city tick. */
export function cityIncome(favor: Favor, landTiles: number): number {
  return favor.base + Math.floor(landTiles / favor.perTiles);
}

/** A kingdom's favor income summed over its live cities, as it stands (each city adds it every 32 ticks). */
export function kingdomIncome(w: World, kingdom: Kingdom): number {
  const favor = rulesOf(w).favor;
  if (favor === null) return 0;
  let income = 0;
  for (const city of w.cities) if (city.alive && city.kingdomId === kingdom.id) income += cityIncome(favor, cityLand(w, city).tiles);
  return income;
}

/** What a new kingdom starts with under the world's rules. */
export function startingFavor(w: World): number {
  return rulesOf(w).favor?.start ?? 0;
}

/** Adds income to a kingdom's favor, up to the cap. */
export function addFavor(w: World, kingdom: Kingdom, amount: number): void {
  const favor = rulesOf(w).favor;
  if (favor === null) return;
  kingdom.favor = Math.min(favor.cap, kingdom.favor + amount);
}

/** The price of `count` of an actor (0: free under these rules). */
export function spawnPrice(prices: Prices, asset: number, adult: boolean, count: number): number {
  const each = ACTOR_KIND[asset] === ACTOR_KIND_CIV ? (adult ? prices.adult : prices.child) : prices.creature;
  return each * count;
}

/** The price of one pulse of a power at a radius (null: its default). */
export function powerPrice(prices: Prices, powerId: string, radius: number | null): number {
  const index = POWER_INDEX.get(powerId);
  const power = index === undefined ? undefined : POWERS[index];
  if (power === undefined) return 0;
  if (power.actor !== undefined) {
    const asset = ACTOR_INDEX.get(power.actor);
    return asset === undefined ? 0 : spawnPrice(prices, asset, true, 1);
  }
  const base = prices.powers[powerId] ?? prices.otherPower;
  if (!power.supportsRadius || radius === null || radius <= power.radius) return base;
  return Math.ceil((base * discArea(radius)) / discArea(power.radius));
}

/** paint_tile's price for a disc of this radius. */
export function paintPrice(prices: Prices, radius: number): number {
  return Math.ceil(discArea(radius) / prices.paintTilesPerFavor);
}

const int = (v: unknown, otherwise: number): number => (typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : otherwise);

/** What an action command costs under the world's rules; 0 for what is free or not an action it knows. */
export function commandPrice(w: World, command: string, args: Readonly<Record<string, unknown>>): number {
  const prices = rulesOf(w).prices;
  if (prices === null) return 0;
  switch (command) {
    case 'spawn': {
      const asset = ACTOR_INDEX.get(String(args.entity_id));
      return asset === undefined ? 0 : spawnPrice(prices, asset, args.adult === true, Math.max(1, int(args.count, 1)));
    }
    case 'invoke_power': {
      const radius = args.radius === undefined ? null : int(args.radius, 0);
      return powerPrice(prices, String(args.power_id), radius) * Math.max(1, int(args.pulses, 1));
    }
    case 'paint_tile':
      return paintPrice(prices, Math.max(0, int(args.radius, 0)));
    default:
      return 0;
  }
}
