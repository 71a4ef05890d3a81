// Terrain from a seed: fractal value noise for height, moisture and temperature, a sea level at a
// fixed quantile (so every seed has land), then tile types, elevation and decoration. Pure integer
// hashing and arithmetic only, so a seed gives the same map on every machine.
import { T, TOP, TILE_WATER } from './assets.ts';
import { hash32 } from './rng.ts';
import type { World } from './world.ts';

/** Share of the map under water; deep ocean below DEEP_QUANTILE. */
const SEA_QUANTILE = 0.45;
const DEEP_QUANTILE = 0.33;
/** Among land tiles: the lowest are beaches, then lowland, hills, mountains; the highest are snow. */
const BEACH_QUANTILE = 0.06;
const LOWLAND_QUANTILE = 0.7;
const HILLS_QUANTILE = 0.86;
const MOUNTAIN_QUANTILE = 0.96;

function lattice(ix: number, iy: number, seed: number): number {
  return hash32(Math.imul(ix, 0x27d4eb2d) ^ Math.imul(iy, 0x165667b1) ^ Math.imul(seed, 0x9e3779b1)) / 4294967296;
}

function valueNoise(x: number, y: number, seed: number): number {
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const a = lattice(x0, y0, seed);
  const b = lattice(x0 + 1, y0, seed);
  const c = lattice(x0, y0 + 1, seed);
  const d = lattice(x0 + 1, y0 + 1, seed);
  const top = a + (b - a) * sx;
  const bottom = c + (d - c) * sx;
  return top + (bottom - top) * sy;
}

/** Fractal noise in [0, 1). */
function fbm(x: number, y: number, seed: number, octaves: number): number {
  let sum = 0;
  let amp = 0.5;
  let norm = 0;
  let freq = 1;
  for (let o = 0; o < octaves; o++) {
    sum += valueNoise(x * freq, y * freq, seed + o * 1013) * amp;
    norm += amp;
    amp *= 0.5;
    freq *= 2;
  }
  return sum / norm;
}

function quantile(values: Float32Array, q: number): number {
  const bins = 4096;
  const hist = new Uint32Array(bins);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const span = max - min || 1;
  for (let i = 0; i < values.length; i++) hist[Math.min(bins - 1, Math.floor(((values[i]! - min) / span) * bins))]!++;
  const target = values.length * q;
  let seen = 0;
  for (let b = 0; b < bins; b++) {
    seen += hist[b]!;
    if (seen >= target) return min + ((b + 1) / bins) * span;
  }
  return max;
}

/** Fills the world's tile layers from its seed and counts its land. */
export function generateTerrain(w: World): void {
  const { width, height, seed } = w;
  const tiles = width * height;
  const heights = new Float32Array(tiles);
  const border = Math.max(8, Math.min(width, height) * 0.12);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let v = fbm(x / 96, y / 96, seed, 5) * 0.8 + fbm(x / 300, y / 300, seed + 77, 2) * 0.35;
      // Oceans at the map's edge: nobody should walk off the world.
      const edge = Math.min(x, y, width - 1 - x, height - 1 - y) / border;
      if (edge < 1) v -= (1 - edge) * (1 - edge) * 0.45;
      heights[y * width + x] = v;
    }
  }
  const sea = quantile(heights, SEA_QUANTILE);
  const deep = quantile(heights, DEEP_QUANTILE);
  let hmax = -Infinity;
  let hmin = Infinity;
  for (let i = 0; i < tiles; i++) {
    if (heights[i]! > hmax) hmax = heights[i]!;
    if (heights[i]! < hmin) hmin = heights[i]!;
  }
  const landSpan = hmax - sea || 1;
  const seaSpan = sea - hmin || 1;
  // Land classes by rank among land tiles, so every seed gets the same mix of lowland and peaks.
  let landCount = 0;
  for (let i = 0; i < tiles; i++) if (heights[i]! >= sea) landCount++;
  const landHeights = new Float32Array(landCount);
  for (let i = 0, n = 0; i < tiles; i++) if (heights[i]! >= sea) landHeights[n++] = heights[i]!;
  const beach = quantile(landHeights, BEACH_QUANTILE);
  const lowland = quantile(landHeights, LOWLAND_QUANTILE);
  const hills = quantile(landHeights, HILLS_QUANTILE);
  const mountains = quantile(landHeights, MOUNTAIN_QUANTILE);

  for (let y = 0; y < height; y++) {
    const latitude = Math.abs(y / height - 0.5) * 2;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const v = heights[i]!;
      if (v < sea) {
        w.tileType[i] = v < deep ? T.deepOcean : T.shallow;
        w.elevation[i] = Math.round(8 + ((v - hmin) / seaSpan) * 88);
        continue;
      }
      const landHeight = (v - sea) / landSpan;
      const moisture = fbm(x / 64, y / 64, seed + 3001, 4);
      const temp = 1 - latitude * 0.55 - landHeight * 0.5 + (fbm(x / 128, y / 128, seed + 4001, 2) - 0.5) * 0.3;
      let type: number;
      if (v < beach) type = T.sand;
      else if (v < lowland) {
        if (moisture < 0.34) type = temp > 0.62 ? T.sand : T.soilLow;
        else if (moisture < 0.43) type = T.soilHigh;
        else if (moisture < 0.55) type = T.grass;
        else type = T.forest;
        if (temp < 0.22) type = T.snow;
      } else if (v < hills) type = temp < 0.2 ? T.snow : T.hills;
      else if (v < mountains) type = T.mountains;
      else type = T.snow;
      if (v >= hills && valueNoise(x / 18, y / 18, seed + 5003) > 0.9) type = T.lava;
      w.tileType[i] = type;
      w.elevation[i] = Math.round(100 + Math.min(1, landHeight) * 155);
      w.topType[i] = decorate(type, temp, v < beach, hash32(i ^ Math.imul(seed, 0x9e3779b1)));
    }
  }
  let land = 0;
  for (let i = 0; i < tiles; i++) if (TILE_WATER[w.tileType[i]!] === 0) land++;
  w.landTiles = land;
}

function decorate(type: number, temp: number, beach: boolean, r: number): number {
  const roll = r % 1000;
  switch (type) {
    case T.forest:
      return roll < 700 ? (temp > 0.45 ? TOP.oak : TOP.pine) : roll < 760 ? TOP.bush : 0;
    case T.grass:
      return roll < 30 ? TOP.oak : roll < 60 ? TOP.flowers : roll < 90 ? TOP.bush : 0;
    case T.soilHigh:
      return roll < 20 ? TOP.bush : 0;
    case T.sand:
      if (beach) return temp > 0.5 && roll < 40 ? TOP.palm : 0;
      return roll < 15 ? TOP.cactus : 0;
    case T.hills:
      if (temp < 0.35 && roll < 300) return TOP.snowCover;
      return roll < 360 && roll >= 300 ? TOP.rock : roll < 60 ? TOP.rock : 0;
    case T.mountains:
      if (temp < 0.4 && roll < 400) return TOP.snowCover;
      return roll > 880 ? TOP.rock : 0;
    default:
      return 0;
  }
}
