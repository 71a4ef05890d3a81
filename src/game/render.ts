// A snapshot drawn as an RGBA image: tiles coloured by type and shaded by height, tops, fire,
// territory tint and kingdom borders, box-filtered down to fit maxDimension, then actors as dots.
import { ACTORS, ACTOR_KIND_CIV, ACTOR_KIND, TILES, TOPS, TILE_WATER } from './assets.ts';
import type { SandboxSnapshot } from './snapshot.ts';
import { FIRE_EXTINGUISHED } from './world.ts';
import type { RgbaImage } from '../shared/game-module.ts';

export type Image = RgbaImage;

export function outputSize(width: number, height: number, maxDimension: number): { width: number; height: number } {
  const longest = Math.max(width, height);
  if (!(maxDimension > 0) || longest <= maxDimension) return { width, height };
  const scale = maxDimension / longest;
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

export function render(s: SandboxSnapshot, maxDimension: number): Image {
  const { width, height } = s;
  const out = outputSize(width, height, maxDimension);
  const outW = out.width;
  const outH = out.height;
  const { type, top, elevation, fire, owner } = s.tiles;

  // City id → kingdom colour (-1: no live city).
  const cityColor = new Int32Array(s.cities.length + 1).fill(-1);
  for (const c of s.cities) {
    const k = s.kingdoms[c.kingdomId - 1];
    if (c.alive && k) cityColor[c.id] = k.color;
  }

  const sums = new Float64Array(outW * outH * 3);
  const counts = new Uint32Array(outW * outH);
  const colX = new Int32Array(width);
  for (let x = 0; x < width; x++) colX[x] = Math.min(outW - 1, Math.floor((x * outW) / width));
  for (let y = 0; y < height; y++) {
    const oy = Math.min(outH - 1, Math.floor((y * outH) / height));
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const ground = type[i]!;
      const tile = TILES[ground]!;
      const altitude = elevation[i]!;
      const shade = TILE_WATER[ground] === 1 ? 0.7 + 0.6 * Math.min(1, altitude / 100) : 0.78 + 0.44 * (altitude / 255);
      let r = tile.color[0] * shade;
      let g = tile.color[1] * shade;
      let b = tile.color[2] * shade;
      const topType = top[i]!;
      if (topType !== 0) {
        const topColor = TOPS[topType - 1]!.color;
        r = r * 0.35 + topColor[0] * 0.65;
        g = g * 0.35 + topColor[1] * 0.65;
        b = b * 0.35 + topColor[2] * 0.65;
      }
      const flame = fire[i]!;
      if (flame !== 0 && flame !== FIRE_EXTINGUISHED) {
        r = r * 0.2 + 255 * 0.8;
        g = g * 0.2 + 120 * 0.8;
        b = b * 0.2 + 20 * 0.8;
      }
      const ownerCity = owner[i]!;
      const ownerColor = ownerCity !== 0 ? cityColor[ownerCity]! : -1;
      if (ownerColor >= 0) {
        const kr = (ownerColor >> 16) & 255;
        const kg = (ownerColor >> 8) & 255;
        const kb = ownerColor & 255;
        const border =
          (x > 0 && owner[i - 1] !== ownerCity) ||
          (x < width - 1 && owner[i + 1] !== ownerCity) ||
          (y > 0 && owner[i - width] !== ownerCity) ||
          (y < height - 1 && owner[i + width] !== ownerCity);
        const mix = border ? 0.9 : 0.2;
        r = r * (1 - mix) + kr * mix;
        g = g * (1 - mix) + kg * mix;
        b = b * (1 - mix) + kb * mix;
      }
      const pixel = oy * outW + colX[x]!;
      sums[pixel * 3] = sums[pixel * 3]! + r;
      sums[pixel * 3 + 1] = sums[pixel * 3 + 1]! + g;
      sums[pixel * 3 + 2] = sums[pixel * 3 + 2]! + b;
      counts[pixel]!++;
    }
  }
  const rgba = new Uint8Array(outW * outH * 4);
  for (let pixel = 0; pixel < outW * outH; pixel++) {
    const n = counts[pixel]! || 1;
    rgba[pixel * 4] = Math.min(255, Math.round(sums[pixel * 3]! / n));
    rgba[pixel * 4 + 1] = Math.min(255, Math.round(sums[pixel * 3 + 1]! / n));
    rgba[pixel * 4 + 2] = Math.min(255, Math.round(sums[pixel * 3 + 2]! / n));
    rgba[pixel * 4 + 3] = 255;
  }

  // Actors: a dot about half a tile wide (at least one pixel), civilised ones in their kingdom's colour.
  const a = s.actors;
  const pxPerTile = outW / width;
  const dot = Math.max(1, Math.round(pxPerTile * 0.6));
  for (let i = 0; i < s.hwm; i++) {
    if (a.alive[i] !== 1) continue;
    const asset = a.asset[i]!;
    let color = ACTORS[asset]?.color ?? [255, 0, 255];
    if (ACTOR_KIND[asset] === ACTOR_KIND_CIV) {
      const kingdomId = a.kingdom[i]!;
      const k = kingdomId > 0 ? s.kingdoms[kingdomId - 1] : undefined;
      if (k) color = [Math.min(255, ((k.color >> 16) & 255) + 40), Math.min(255, ((k.color >> 8) & 255) + 40), Math.min(255, (k.color & 255) + 40)];
    }
    const ox = Math.min(outW - 1, Math.floor((a.x[i]! * outW) / width));
    const oy = Math.min(outH - 1, Math.floor((a.y[i]! * outH) / height));
    for (let dy = 0; dy < dot && oy + dy < outH; dy++) {
      for (let dx = 0; dx < dot && ox + dx < outW; dx++) {
        const p = ((oy + dy) * outW + ox + dx) * 4;
        rgba[p] = color[0];
        rgba[p + 1] = color[1];
        rgba[p + 2] = color[2];
      }
    }
  }
  return { width: outW, height: outH, rgba };
}
