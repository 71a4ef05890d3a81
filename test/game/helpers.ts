// Shared helpers for the sandbox world's tests (not a test file: tap only runs *.test.ts).
import { TILE_INDEX, TILES } from '../../src/game/assets.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';

export const SMALL = { seed: 1234, zonesX: 2, zonesY: 2, suppressStartupWindow: true } as const;
export const DEFAULT = { seed: 1234, zonesX: 4, zonesY: 4, suppressStartupWindow: true } as const;

/** The first tile (scanning rows from the centre outwards) whose type passes `test`. */
export function findTile(s: SandboxSnapshot, test: (tileId: string, x: number, y: number, index: number) => boolean): { x: number; y: number } {
  const cx = s.width >> 1;
  const cy = s.height >> 1;
  for (let r = 0; r < Math.max(s.width, s.height); r++) {
    for (let y = Math.max(0, cy - r); y <= Math.min(s.height - 1, cy + r); y++) {
      for (let x = Math.max(0, cx - r); x <= Math.min(s.width - 1, cx + r); x++) {
        if (Math.max(Math.abs(x - cx), Math.abs(y - cy)) !== r) continue;
        const i = y * s.width + x;
        if (test(TILES[s.tiles.type[i]!]!.id, x, y, i)) return { x, y };
      }
    }
  }
  throw new Error('no tile matches');
}

export function tileIdAt(s: SandboxSnapshot, x: number, y: number): string {
  return TILES[s.tiles.type[y * s.width + x]!]!.id;
}

export const WATER = new Set(['deep_ocean', 'shallow_water']);
export const T_GRASS = TILE_INDEX.get('grass')!;

/** A land tile whose whole (2r+1)² square is land that nobody owns. */
export function openLand(s: SandboxSnapshot, r: number, kinds = ['grass', 'soil_low', 'soil_high', 'sand', 'forest']): { x: number; y: number } {
  return findTile(s, (_id, x, y) => {
    for (let dy = -r; dy <= r; dy++) {
      for (let dx = -r; dx <= r; dx++) {
        const tx = x + dx;
        const ty = y + dy;
        if (tx < 0 || ty < 0 || tx >= s.width || ty >= s.height) return false;
        const i = ty * s.width + tx;
        if (!kinds.includes(TILES[s.tiles.type[i]!]!.id) || s.tiles.owner[i] !== 0) return false;
      }
    }
    return true;
  });
}

/** Runs update() until `ticks` more ticks have happened (x40 and 100 ms frames: 16 ticks a call). */
export function runTicks(game: { update(dt: number): void; currentTick(): number; setSpeed(id: string): string }, ticks: number): void {
  const previous = game.setSpeed('x40');
  const target = game.currentTick() + ticks;
  let guard = 0;
  while (game.currentTick() < target && guard++ < ticks * 2) game.update(Math.min(100, ((target - game.currentTick()) * 50) / 40));
  game.setSpeed(previous);
}
