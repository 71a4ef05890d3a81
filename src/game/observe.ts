// The observe read for the sandbox: the map folded into a fixed grid of cells, whatever the world's
// size, so that a learning agent gets its whole view in one call. Read-only: nothing here touches
// the state the simulation relies on.
import { Buffer } from 'node:buffer';
import { TILES } from './assets.ts';
import { isAdult } from './actors.ts';
import { housingCapacity } from './kingdoms.ts';
import { cityLand, kingdomIncome, rulesOf } from './rules.ts';
import type { City, Kingdom, World } from './world.ts';
import { ANCHOR_STATS } from '../shared/anchor-stats.ts';
import type { GridObservation, GridView } from '../shared/game-module.ts';

const MAX_COUNT = 0xffff;

/** For each column (or row) of the map, the cell column (or row) it falls in. */
function cellIndex(tiles: number, cells: number): Int32Array {
  const of = new Int32Array(tiles);
  for (let t = 0; t < tiles; t++) of[t] = Math.floor((t * cells) / tiles);
  return of;
}

/** The cell columns and rows of the last map size and grid asked for (every call of an env asks the same). */
let lastIndex: { width: number; height: number; cells: number; cellX: Int32Array; cellY: Int32Array } | null = null;

function cellIndexes(w: World, cells: number): { cellX: Int32Array; cellY: Int32Array } {
  if (lastIndex === null || lastIndex.width !== w.width || lastIndex.height !== w.height || lastIndex.cells !== cells) {
    lastIndex = { width: w.width, height: w.height, cells, cellX: cellIndex(w.width, cells), cellY: cellIndex(w.height, cells) };
  }
  return lastIndex;
}

/** The commonest tile type of each cell, from a histogram of every tile. */
function classify(w: World, cells: number, cellX: Int32Array, cellY: Int32Array): Uint8Array {
  const area = cells * cells;
  const types = TILES.length;
  const histogram = new Uint32Array(area * types);
  for (let y = 0; y < w.height; y++) {
    const rowCell = cellY[y]! * cells;
    const rowTile = y * w.width;
    for (let x = 0; x < w.width; x++) histogram[(rowCell + cellX[x]!) * types + w.tileType[rowTile + x]!]!++;
  }
  const tiles = new Uint8Array(area);
  for (let cell = 0; cell < area; cell++) {
    let best = -1;
    let most = 0;
    for (let type = 0; type < types; type++) {
      const n = histogram[cell * types + type]!;
      if (n > most) {
        most = n;
        best = type;
      }
    }
    // A map narrower than the grid leaves some cells without tiles: they show the tile at their centre.
    if (best < 0) {
      const tx = Math.min(w.width - 1, Math.floor(((cell % cells) + 0.5) * (w.width / cells)));
      const ty = Math.min(w.height - 1, Math.floor((Math.floor(cell / cells) + 0.5) * (w.height / cells)));
      best = w.tileType[ty * w.width + tx]!;
    }
    tiles[cell] = best;
  }
  return tiles;
}

/**
 * The tile classes last computed, with a copy of the tile types they came from. Tiles change far
 * less often than agents observe (each of n agents observes once a cycle, and a tick changes few
 * tiles if any), and comparing the types byte for byte costs a small part of the histogram: reused
 * while the bytes and the grid are the same, so the answer is always the histogram's.
 */
let lastClasses: { width: number; cells: number; types: Uint8Array; tiles: Uint8Array } | null = null;

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

function tileClasses(w: World, cells: number, cellX: Int32Array, cellY: Int32Array): Uint8Array {
  const last = lastClasses;
  if (last !== null && last.width === w.width && last.cells === cells && sameBytes(last.types, w.tileType)) return last.tiles.slice();
  const tiles = classify(w, cells, cellX, cellY);
  lastClasses = { width: w.width, cells, types: w.tileType.slice(), tiles: tiles.slice() };
  return tiles;
}

/**
 * Territory per cell of the cities listed, and the tiles they own in all, counted from each tile's
 * owner. Owners change only when a city claims or loses land, so the counts are kept with a copy of
 * the owners they came from, for each set of cities (one per agent observing): reused while the
 * owners are the same bytes. At most MAX_VIEWERS sets are kept; past that the oldest goes.
 */
let lastOwners: { width: number; cells: number; owner: Uint16Array; byCities: Map<string, { territory: Uint16Array; tiles: number }> } | null = null;
const MAX_VIEWERS = 16;

function countTerritory(w: World, cells: number, cellX: Int32Array, cellY: Int32Array, ownCity: Uint8Array): { territory: Uint16Array; tiles: number } {
  const territory = new Uint16Array(cells * cells);
  let tiles = 0;
  for (let y = 0; y < w.height; y++) {
    const rowCell = cellY[y]! * cells;
    const rowTile = y * w.width;
    for (let x = 0; x < w.width; x++) {
      if (ownCity[w.owner[rowTile + x]!] !== 1) continue;
      const cell = rowCell + cellX[x]!;
      if (territory[cell]! < MAX_COUNT) territory[cell]!++;
      tiles++;
    }
  }
  return { territory, tiles };
}

function territoryOf(w: World, cells: number, cellX: Int32Array, cellY: Int32Array, cityIds: number[]): { territory: Uint16Array; tiles: number } {
  // Without a city the viewer owns no tile.
  if (cityIds.length === 0) return { territory: new Uint16Array(cells * cells), tiles: 0 };
  let last = lastOwners;
  const owners = (o: Uint16Array) => new Uint8Array(o.buffer, o.byteOffset, o.byteLength);
  if (last === null || last.width !== w.width || last.cells !== cells || !sameBytes(owners(last.owner), owners(w.owner))) {
    last = lastOwners = { width: w.width, cells, owner: w.owner.slice(), byCities: new Map() };
  }
  const key = cityIds.join(',');
  let kept = last.byCities.get(key);
  if (kept === undefined) {
    const ownCity = new Uint8Array(w.cities.length + 1);
    for (const id of cityIds) ownCity[id] = 1;
    kept = countTerritory(w, cells, cellX, cellY, ownCity);
    if (last.byCities.size >= MAX_VIEWERS) last.byCities.delete(last.byCities.keys().next().value!);
    last.byCities.set(key, kept);
  }
  return { territory: kept.territory.slice(), tiles: kept.tiles };
}

export function observeWorld(w: World, view: GridView): GridObservation {
  const cells = view.cells;
  const area = cells * cells;
  const { cellX, cellY } = cellIndexes(w, cells);
  const kingdom = view.kingdomId === null ? undefined : w.kingdoms[view.kingdomId - 1];
  const own = kingdom !== undefined && kingdom.alive && !kingdom.wild ? kingdom.id : -1;

  const cityIds: number[] = [];
  let buildings = 0;
  const anchors: Array<{ x: number; y: number }> = [];
  const anchorCities: City[] = [];
  for (const city of w.cities) {
    if (!city.alive || city.kingdomId !== own) continue;
    cityIds.push(city.id);
    buildings += city.buildings;
    if (anchors.length < view.anchors) {
      anchors.push({ x: city.x, y: city.y });
      anchorCities.push(city);
    }
  }
  const territory = territoryOf(w, cells, cellX, cellY, cityIds);
  const rival = view.others && (view.rivalAnchors ?? 0) > 0 ? rivalOf(w, own, anchorCities[0]) : undefined;
  const rivalCities = rival ? w.cities.filter((c) => c.alive && c.kingdomId === rival.id) : [];
  const rivalAnchors = rivalCities.slice(0, view.rivalAnchors ?? 0);

  // Per anchor city (own first, then the rival's), the figures counted from its people below.
  const stats = new CityStats(w, [...anchorCities, ...rivalAnchors]);

  // Planes: 0 the viewer's kingdom, 1 other kingdoms, 2 wild (no kingdom, or a wild one).
  const wild = new Uint8Array(w.kingdoms.length + 1);
  wild[0] = 1;
  for (const k of w.kingdoms) if (k.wild) wild[k.id] = 1;
  const actors = new Uint16Array(3 * area);
  const a = w.a;
  let population = 0;
  let rivalPopulation = 0;
  const rivalId = rival?.id ?? -1;
  for (let s = 0; s < w.actorEnd; s++) {
    if (a.alive[s] !== 1) continue;
    const k = a.kingdom[s]!;
    stats.count(s);
    const plane = k === own ? 0 : wild[k] === 1 ? 2 : 1;
    if (plane === 0) population++;
    else if (k === rivalId) rivalPopulation++;
    if (plane !== 0 && !view.others) continue;
    const x = Math.min(w.width - 1, Math.max(0, a.x[s]! | 0));
    const y = Math.min(w.height - 1, Math.max(0, a.y[s]! | 0));
    const at = plane * area + cellY[y]! * cells + cellX[x]!;
    if (actors[at]! < MAX_COUNT) actors[at]!++;
  }

  const observation: GridObservation = {
    tiles: tileClasses(w, cells, cellX, cellY),
    actors,
    territory: territory.territory,
    counts: { alive: own > 0, population, cities: cityIds.length, buildings, territory: territory.tiles },
    anchors,
    anchorStats: stats.figures(0, anchorCities.length, view.anchors),
  };
  const favor = rulesOf(w).favor;
  if (favor !== null && kingdom !== undefined && own > 0) observation.economy = { favor: kingdom.favor, cap: favor.cap, income: kingdomIncome(w, kingdom) };
  if (view.others && (view.rivalAnchors ?? 0) > 0) {
    observation.rival = rival
      ? {
          kingdomId: rival.id,
          counts: {
            alive: true,
            population: rivalPopulation,
            cities: rivalCities.length,
            buildings: rivalCities.reduce((sum, c) => sum + c.buildings, 0),
            territory: rivalCities.reduce((sum, c) => sum + cityLand(w, c).tiles, 0),
          },
          anchors: rivalAnchors.map((c) => ({ x: c.x, y: c.y })),
          anchorStats: stats.figures(anchorCities.length, rivalAnchors.length, view.rivalAnchors ?? 0),
        }
      : null;
  }
  return observation;
}

/** The other live civilised kingdom whose capital lies nearest `home` (the first other one when there is no home). */
function rivalOf(w: World, own: number, home: City | undefined): Kingdom | undefined {
  let best: Kingdom | undefined;
  let bestD2 = Infinity;
  for (const k of w.kingdoms) {
    if (!k.alive || k.wild || k.id === own) continue;
    const capital = k.capitalId > 0 ? w.cities[k.capitalId - 1] : undefined;
    const d2 = home && capital ? (capital.x - home.x) ** 2 + (capital.y - home.y) ** 2 : 0;
    if (best === undefined || d2 < bestD2) {
      best = k;
      bestD2 = d2;
    }
  }
  return best;
}

const STATS = ANCHOR_STATS.length;
const at = (name: (typeof ANCHOR_STATS)[number]) => ANCHOR_STATS.indexOf(name);
const UNITS = at('units');
const ADULTS = at('adults');
const SICK = at('sick');
const BLESSED = at('blessed');

/** ANCHOR_STATS for a list of cities: what the city records hold, and what its people are, counted actor by actor. */
class CityStats {
  readonly values: Int32Array;
  readonly #slot: Int32Array;
  readonly #w: World;

  constructor(w: World, cities: City[]) {
    this.#w = w;
    this.values = new Int32Array(cities.length * STATS);
    this.#slot = new Int32Array(w.cities.length + 1).fill(-1);
    cities.forEach((city, n) => {
      this.#slot[city.id] = n;
      const land = cityLand(w, city);
      const row = this.values.subarray(n * STATS, (n + 1) * STATS);
      row[at('housing')] = housingCapacity(city);
      row[at('food')] = city.food;
      row[at('buildings')] = city.buildings;
      row[at('territory')] = land.tiles;
      row[at('fertile')] = land.fertile;
    });
  }

  /** Counts live actor `s` in its city's row, when its city is listed. */
  count(s: number): void {
    const a = this.#w.a;
    const n = this.#slot[a.city[s]!]!;
    if (n < 0) return;
    const row = n * STATS;
    this.values[row + UNITS]!++;
    if (isAdult(this.#w, s)) this.values[row + ADULTS]!++;
    if (a.plague[s]! > 0) this.values[row + SICK]!++;
    if (a.blessed[s]! > this.values[row + BLESSED]!) this.values[row + BLESSED] = a.blessed[s]!;
  }

  /** `count` rows: the `rows` listed from row `first`, then zeros. */
  figures(first: number, rows: number, count: number): Int32Array {
    const out = new Int32Array(count * STATS);
    out.set(this.values.subarray(first * STATS, (first + Math.min(rows, count)) * STATS));
    return out;
  }
}
