// The observe read for the sandbox: the map folded into a fixed grid of cells, whatever the world's
// size, in one pass over the tiles and one over the actors, so that a learning agent gets its whole
// view in one call. Read-only: nothing here touches the state the simulation relies on.
import { TILES } from './assets.ts';
import type { World } from './world.ts';
import type { GridObservation, GridView } from '../shared/game-module.ts';

const MAX_COUNT = 0xffff;

/** For each column (or row) of the map, the cell column (or row) it falls in. */
function cellIndex(tiles: number, cells: number): Int32Array {
  const of = new Int32Array(tiles);
  for (let t = 0; t < tiles; t++) of[t] = Math.floor((t * cells) / tiles);
  return of;
}

export function observeWorld(w: World, view: GridView): GridObservation {
  const cells = view.cells;
  const area = cells * cells;
  const cellX = cellIndex(w.width, cells);
  const cellY = cellIndex(w.height, cells);
  const kingdom = view.kingdomId === null ? undefined : w.kingdoms[view.kingdomId - 1];
  const own = kingdom !== undefined && kingdom.alive && !kingdom.wild ? kingdom.id : -1;

  // Which cities are the viewer's: territory is counted from each tile's owner.
  const ownCity = new Uint8Array(w.cities.length + 1);
  let cities = 0;
  let buildings = 0;
  const anchors: Array<{ x: number; y: number }> = [];
  for (const city of w.cities) {
    if (!city.alive || city.kingdomId !== own) continue;
    ownCity[city.id] = 1;
    cities++;
    buildings += city.buildings;
    if (anchors.length < view.anchors) anchors.push({ x: city.x, y: city.y });
  }

  const types = TILES.length;
  const histogram = new Uint32Array(area * types);
  const territory = new Uint16Array(area);
  let ownTiles = 0;
  for (let y = 0; y < w.height; y++) {
    const rowCell = cellY[y]! * cells;
    const rowTile = y * w.width;
    for (let x = 0; x < w.width; x++) {
      const cell = rowCell + cellX[x]!;
      const i = rowTile + x;
      histogram[cell * types + w.tileType[i]!]!++;
      if (ownCity[w.owner[i]!] === 1) {
        if (territory[cell]! < MAX_COUNT) territory[cell]!++;
        ownTiles++;
      }
    }
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

  // Planes: 0 the viewer's kingdom, 1 other kingdoms, 2 wild (no kingdom, or a wild one).
  const wild = new Uint8Array(w.kingdoms.length + 1);
  wild[0] = 1;
  for (const k of w.kingdoms) if (k.wild) wild[k.id] = 1;
  const actors = new Uint16Array(3 * area);
  const a = w.a;
  let population = 0;
  for (let s = 0; s < w.slotEnd; s++) {
    if (a.alive[s] !== 1) continue;
    const k = a.kingdom[s]!;
    const plane = k === own ? 0 : wild[k] === 1 ? 2 : 1;
    if (plane === 0) population++;
    else if (!view.others) continue;
    const x = Math.min(w.width - 1, Math.max(0, a.x[s]! | 0));
    const y = Math.min(w.height - 1, Math.max(0, a.y[s]! | 0));
    const at = plane * area + cellY[y]! * cells + cellX[x]!;
    if (actors[at]! < MAX_COUNT) actors[at]!++;
  }

  return {
    tiles,
    actors,
    territory,
    counts: { alive: own > 0, population, cities, buildings, territory: ownTiles },
    anchors,
  };
}
