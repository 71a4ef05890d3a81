// A new world from (zones, seed): terrain, a few civilised kingdoms with a capital each, herds of
// animals and fish. Pure: it builds a private World and returns its snapshot.
import { A, ACTOR_INDEX, CIV_ACTORS, canStand, MAX_ZONES, MIN_ZONES, T, TILE_BUILDABLE, TILE_WATER, ZONE_TILES } from './assets.ts';
import { createActor } from './actors.ts';
import { canFoundAt, census, declareWar, foundKingdom, seedCity, wildKingdomFor } from './kingdoms.ts';
import { RULES_IDS, RULES_INDEX, rulesOf } from './rules.ts';
import { nextInt } from './rng.ts';
import { toSnapshot, type SandboxSnapshot } from './snapshot.ts';
import { generateTerrain } from './terrain.ts';
import { createWorld, type World } from './world.ts';

export interface GenerateParams {
  zonesX: number;
  zonesY: number;
  seed: number;
  /** The world's rules (rules.ts: sandbox, grow, duel); sandbox when left out. */
  rules?: string;
}

export class GenerateError extends Error {}

export function checkParams(params: GenerateParams): void {
  const { zonesX, zonesY, seed } = params;
  for (const [name, v] of [
    ['zonesX', zonesX],
    ['zonesY', zonesY],
  ] as const) {
    if (!Number.isInteger(v) || v < MIN_ZONES || v > MAX_ZONES)
      throw new GenerateError(`${name} must be an integer in ${MIN_ZONES}..${MAX_ZONES}, got ${String(v)}`);
  }
  if (!Number.isInteger(seed)) throw new GenerateError(`seed must be an integer, got ${String(seed)}`);
  if (params.rules !== undefined && !RULES_INDEX.has(params.rules)) {
    throw new GenerateError(`rules must be one of ${RULES_IDS.join(', ')}, got ${JSON.stringify(params.rules)}`);
  }
}

/** The live-world form of a fresh world (generateWorld snapshots it). */
export function buildWorld(params: GenerateParams): World {
  checkParams(params);
  const w = createWorld(params.zonesX * ZONE_TILES, params.zonesY * ZONE_TILES, params.seed);
  w.rules = RULES_INDEX.get(params.rules ?? 'sandbox')!;
  generateTerrain(w);
  populate(w, params.zonesX * params.zonesY);
  return w;
}

export function generateSnapshot(params: GenerateParams): SandboxSnapshot {
  return toSnapshot(buildWorld(params));
}

const HERDS: ReadonlyArray<readonly [string, number]> = [
  ['sheep', 6],
  ['cow', 4],
  ['chicken', 4],
  ['rabbit', 5],
  ['cat', 1],
  ['dog', 1],
  ['fox', 1],
  ['wolf', 2],
  ['bear', 1],
];
const HERD_WEIGHT = HERDS.reduce((sum, [, weight]) => sum + weight, 0);

function randomTile(w: World): number {
  return nextInt(w.rng, w.width * w.height);
}

function populate(w: World, zones: number): void {
  const duel = rulesOf(w).duel;
  // A duel is two kingdoms of one race, close enough to meet from the start.
  const kingdoms = duel ? 2 : Math.max(2, Math.min(12, Math.round(zones / 4)));
  const minApart = duel ? duel.minApart : Math.max(24, Math.floor(Math.min(w.width, w.height) / 4));
  const maxApart = duel ? duel.maxApart : Infinity;
  const capitals: Array<[number, number]> = [];
  for (let k = 0; k < kingdoms; k++) {
    const asset = duel ? CIV_ACTORS[0]! : CIV_ACTORS[k % CIV_ACTORS.length]!;
    for (let attempt = 0; attempt < (duel ? 4000 : 400); attempt++) {
      const i = randomTile(w);
      const x = i % w.width;
      const y = Math.floor(i / w.width);
      const type = w.tileType[i]!;
      const good =
        type === T.grass || type === T.soilHigh || type === T.soilLow || (asset === A.dwarf && type === T.hills) || (asset === A.elf && type === T.forest);
      if (!good || !canFoundAt(w, x, y)) continue;
      if (capitals.some(([cx, cy]) => (cx - x) ** 2 + (cy - y) ** 2 < minApart * minApart || (cx - x) ** 2 + (cy - y) ** 2 > maxApart * maxApart)) continue;
      const founder = createActor(w, asset, x + 0.5, y + 0.5, true, 0, 0);
      const kingdom = foundKingdom(w, founder);
      if (!kingdom) break;
      const city = w.cities[kingdom.capitalId - 1]!;
      seedCity(w, city, 4 + nextInt(w.rng, 4));
      city.food = 30;
      const people = 14 + nextInt(w.rng, 10);
      for (let p = 0; p < people; p++) {
        const px = x + nextInt(w.rng, 7) - 3;
        const py = y + nextInt(w.rng, 7) - 3;
        if (px < 0 || py < 0 || px >= w.width || py >= w.height) continue;
        if (!canStand(asset, w.tileType[py * w.width + px]!)) continue;
        createActor(w, asset, px + 0.5, py + 0.5, p % 3 !== 2, kingdom.id, city.id);
      }
      capitals.push([x, y]);
      break;
    }
  }

  // Herds on land, fish in the shallows.
  const herds = Math.floor(w.landTiles / 400);
  for (let h = 0; h < herds; h++) {
    const i = randomTile(w);
    if (TILE_WATER[w.tileType[i]!] === 1 || w.owner[i] !== 0 || w.tileType[i] === T.lava) continue;
    let roll = nextInt(w.rng, HERD_WEIGHT);
    let species = HERDS[0]![0];
    for (const [id, weight] of HERDS) {
      if (roll < weight) {
        species = id;
        break;
      }
      roll -= weight;
    }
    const asset = ACTOR_INDEX.get(species)!;
    const size = 3 + nextInt(w.rng, 4);
    placeGroup(w, asset, i, size);
  }
  const fish = Math.floor((w.width * w.height - w.landTiles) / 900);
  for (let f = 0; f < fish; f++) {
    const i = randomTile(w);
    if (w.tileType[i] !== T.shallow) continue;
    placeGroup(w, A.fish, i, 1 + nextInt(w.rng, 2));
  }
  census(w);
  if (duel) {
    const [first, second] = w.kingdoms.filter((k) => !k.wild);
    if (first && second) declareWar(first, second);
  }
}

function placeGroup(w: World, asset: number, centre: number, size: number): void {
  const cx = centre % w.width;
  const cy = Math.floor(centre / w.width);
  // The wild kingdom is created on first use, so ids follow the order herds appear in.
  for (let n = 0; n < size; n++) {
    const x = cx + nextInt(w.rng, 5) - 2;
    const y = cy + nextInt(w.rng, 5) - 2;
    if (x < 0 || y < 0 || x >= w.width || y >= w.height) continue;
    const type = w.tileType[y * w.width + x]!;
    if (!canStand(asset, type) || type === T.lava || (asset !== A.fish && TILE_BUILDABLE[type] === 0 && type !== T.mountains)) continue;
    placeWild(w, asset, x + 0.5, y + 0.5, n > 0 || nextInt(w.rng, 2) === 0);
  }
}

function placeWild(w: World, asset: number, x: number, y: number, adult: boolean): void {
  createActor(w, asset, x, y, adult, wildKingdomFor(w, asset), 0);
}
