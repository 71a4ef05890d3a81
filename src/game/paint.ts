// paint_tile: set a tile type and/or a top tile over a brush disc.
import { TILE_WATER, TILES } from './assets.ts';
import { discArea, forDisc, setTileType, setTop, type World } from './world.ts';
import type { PaintOutcome } from '../shared/game-module.ts';

export type PaintResult = PaintOutcome;

/**
 * Paints tile type `tile` (index, or null to keep) and top `top` (stored value, 0 = clear, null to
 * keep) on every tile of the disc. A tile is painted when at least one layer was applied; it is
 * skipped when it lies off the map or when only a top was asked and tops cannot stand there (water).
 */
export function paint(w: World, x: number, y: number, tile: number | null, top: number | null, radius: number): PaintResult {
  let painted = 0;
  forDisc(w, x, y, radius, (i) => {
    let applied = false;
    if (tile !== null) {
      const old = w.tileType[i]!;
      if (old !== tile) {
        const oldInfo = TILES[old]!;
        const info = TILES[tile]!;
        setTileType(w, i, tile);
        // A tile that changes class (water, land, highland) takes that class's elevation.
        if (oldInfo.category !== info.category) w.elevation[i] = info.paintElevation;
      }
      applied = true;
    }
    if (top !== null && (top === 0 || TILE_WATER[w.tileType[i]!] === 0)) {
      setTop(w, i, top);
      applied = true;
    }
    if (applied) painted++;
  });
  return { painted, skipped: discArea(radius) - painted };
}
