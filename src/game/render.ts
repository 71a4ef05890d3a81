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
      const t = type[i]!;
      const tile = TILES[t]!;
      const e = elevation[i]!;
      const shade = TILE_WATER[t] === 1 ? 0.7 + 0.6 * Math.min(1, e / 100) : 0.78 + 0.44 * (e / 255);
      let r = tile.color[0] * shade;
      let g = tile.color[1] * shade;
      let b = tile.color[2] * shade;
      const tp = top[i]!;
      if (tp !== 0) {
        const c = TOPS[tp - 1]!.color;
        r = r * 0.35 + c[0] * 0.65;
        g = g * 0.35 + c[1] * 0.65;
        b = b * 0.35 + c[2] * 0.65;
      }
      const f = fire[i]!;
      if (f !== 0 && f !== FIRE_EXTINGUISHED) {
        r = r * 0.2 + 255 * 0.8;
        g = g * 0.2 + 120 * 0.8;
        b = b * 0.2 + 20 * 0.8;
      }
      const o = owner[i]!;
      const kc = o !== 0 ? cityColor[o]! : -1;
      if (kc >= 0) {
        const kr = (kc >> 16) & 255;
        const kg = (kc >> 8) & 255;
        const kb = kc & 255;
        const border =
          (x > 0 && owner[i - 1] !== o) ||
          (x < width - 1 && owner[i + 1] !== o) ||
          (y > 0 && owner[i - width] !== o) ||
          (y < height - 1 && owner[i + width] !== o);
        const mix = border ? 0.9 : 0.2;
        r = r * (1 - mix) + kr * mix;
        g = g * (1 - mix) + kg * mix;
        b = b * (1 - mix) + kb * mix;
      }
      const p = oy * outW + colX[x]!;
      sums[p * 3] = sums[p * 3]! + r;
      sums[p * 3 + 1] = sums[p * 3 + 1]! + g;
      sums[p * 3 + 2] = sums[p * 3 + 2]! + b;
      counts[p]!++;
    }
  }
  const rgba = new Uint8Array(outW * outH * 4);
  for (let p = 0; p < outW * outH; p++) {
    const n = counts[p]! || 1;
    rgba[p * 4] = Math.min(255, Math.round(sums[p * 3]! / n));
    rgba[p * 4 + 1] = Math.min(255, Math.round(sums[p * 3 + 1]! / n));
    rgba[p * 4 + 2] = Math.min(255, Math.round(sums[p * 3 + 2]! / n));
    rgba[p * 4 + 3] = 255;
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
      const kid = a.kingdom[i]!;
      const k = kid > 0 ? s.kingdoms[kid - 1] : undefined;
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
