// world://map.png for a credential that may not take a screenshot (decisions §14): a picture drawn
// from what it may see, the `observe` command's planes: the map folded into grid × grid cells,
// each coloured by its commonest tile's category, the kingdom's land tinted, and the live actors
// it may see marked (its own, and others and wild ones only when observe shows them).
import { PNG } from 'pngjs';

/** The part of observe's answer the picture needs. */
export interface ObservePlanes {
  grid: number;
  tiles: { base64: string };
  actors: { base64: string };
  territory: { base64: string };
}

/** list_tiles' items: a tile's category decides its colour. */
export interface TileInfo {
  id: string;
  category?: unknown;
  water?: unknown;
}

/** Pixels a cell is drawn with, a side. */
const CELL_PIXELS = 4;

const CATEGORY_COLORS: Record<string, readonly [number, number, number]> = {
  water: [38, 84, 160],
  land: [96, 150, 64],
  mountain: [128, 118, 108],
  hill: [120, 130, 80],
  snow: [228, 232, 236],
  lava: [210, 80, 30],
  road: [150, 130, 100],
};
const UNKNOWN: readonly [number, number, number] = [90, 90, 90];
const OWN_ACTOR: readonly [number, number, number] = [250, 220, 40];
const OTHER_ACTOR: readonly [number, number, number] = [220, 40, 40];
const WILD_ACTOR: readonly [number, number, number] = [240, 240, 240];
const OWN_LAND: readonly [number, number, number] = [250, 200, 40];

/** A PNG of grid × CELL_PIXELS pixels a side. */
export function renderObservedMap(view: ObservePlanes, tiles: readonly TileInfo[]): Buffer {
  const cells = view.grid;
  const tileIndex = Buffer.from(view.tiles.base64, 'base64');
  const actors = uint16(view.actors.base64);
  const territory = uint16(view.territory.base64);
  const area = cells * cells;
  const side = cells * CELL_PIXELS;
  const png = new PNG({ width: side, height: side });
  for (let cell = 0; cell < area; cell++) {
    const tile = tiles[tileIndex[cell] ?? 0];
    let color = colorOf(tile, tileIndex[cell] ?? 0);
    if ((territory[cell] ?? 0) > 0) color = mix(color, OWN_LAND, 0.45);
    const cx = (cell % cells) * CELL_PIXELS;
    const cy = Math.floor(cell / cells) * CELL_PIXELS;
    fill(png, cx, cy, CELL_PIXELS, color);
    // A dot per plane with actors in the cell: the kingdom's own, other kingdoms', wild.
    const planes: Array<readonly [number, number, number]> = [OWN_ACTOR, OTHER_ACTOR, WILD_ACTOR];
    planes.forEach((dot, plane) => {
      if ((actors[plane * area + cell] ?? 0) > 0) fill(png, cx + (plane === 0 ? 1 : plane === 1 ? 2 : 0), cy + (plane === 2 ? 2 : 1), 1, dot);
    });
  }
  return PNG.sync.write(png);
}

function colorOf(tile: TileInfo | undefined, index: number): readonly [number, number, number] {
  const category = typeof tile?.category === 'string' ? tile.category : tile?.water === true ? 'water' : undefined;
  const base = (category === undefined ? undefined : CATEGORY_COLORS[category]) ?? UNKNOWN;
  // Tiles of one category told apart by a shade of their index.
  const shade = 0.85 + ((index * 37) % 7) * 0.05;
  return [clamp(base[0] * shade), clamp(base[1] * shade), clamp(base[2] * shade)];
}

function mix(a: readonly number[], b: readonly number[], weight: number): [number, number, number] {
  return [clamp(a[0]! * (1 - weight) + b[0]! * weight), clamp(a[1]! * (1 - weight) + b[1]! * weight), clamp(a[2]! * (1 - weight) + b[2]! * weight)];
}

function fill(png: PNG, x: number, y: number, size: number, color: readonly number[]): void {
  for (let dy = 0; dy < size; dy++) {
    for (let dx = 0; dx < size; dx++) {
      const p = ((y + dy) * png.width + (x + dx)) * 4;
      png.data[p] = color[0]!;
      png.data[p + 1] = color[1]!;
      png.data[p + 2] = color[2]!;
      png.data[p + 3] = 255;
    }
  }
}

function uint16(base64: string): Uint16Array {
  const bytes = Buffer.from(base64, 'base64');
  const out = new Uint16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readUInt16LE(i * 2);
  return out;
}

function clamp(value: number): number {
  return Math.max(0, Math.min(255, Math.round(value)));
}
