// Seeded randomness. The world's generator state is four words (sfc32) kept inside the world, so a
// snapshot carries it and a loaded world continues exactly where the saved one stopped. Nothing in
// src/game may use Math.random or the clock: determinism is a tested property.

export type RngState = Uint32Array;

/** A fresh sfc32 state from a 32-bit seed (and an optional stream number). */
export function seedRng(seed: number, stream = 0): RngState {
  const s = new Uint32Array(4);
  s[0] = 0x9e3779b9;
  s[1] = hash32(seed >>> 0);
  s[2] = hash32((seed ^ 0x85ebca6b) + stream);
  s[3] = 1;
  for (let i = 0; i < 12; i++) nextU32(s);
  return s;
}

/** sfc32: small, fast, and good enough for a game. */
export function nextU32(s: RngState): number {
  const a = s[0]!;
  const b = s[1]!;
  const c = s[2]!;
  const d = s[3]!;
  const t = (((a + b) | 0) + d) | 0;
  s[3] = (d + 1) | 0;
  s[0] = b ^ (b >>> 9);
  s[1] = (c + (c << 3)) | 0;
  s[2] = (((c << 21) | (c >>> 11)) + t) | 0;
  return t >>> 0;
}

/** A float in [0, 1). */
export function nextFloat(s: RngState): number {
  return nextU32(s) / 4294967296;
}

/** An integer in [0, n). */
export function nextInt(s: RngState, n: number): number {
  return Math.floor((nextU32(s) / 4294967296) * n);
}

/** True with probability perMille / 1000. */
export function chancePerMille(s: RngState, perMille: number): boolean {
  return nextU32(s) % 1000 < perMille;
}

/** murmur3's finaliser: a stateless 32-bit hash (terrain noise, names, per-tile decoration). */
export function hash32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A stateless hash of three integers. */
export function hash3(a: number, b: number, c: number): number {
  return hash32(Math.imul(a | 0, 0x27d4eb2d) ^ hash32(Math.imul(b | 0, 0x165667b1) ^ hash32(c | 0)));
}
