import { Type } from '@sinclair/typebox';
import { readScope } from '../shared/scope.ts';
import { defineCommand } from '../define.ts';

/** The order of `counts`: fixed, so a client can read the vector by position. */
export const OBSERVE_COUNTS = ['alive', 'population', 'cities', 'buildings', 'territory'] as const;
/** The planes of `actors`. */
export const OBSERVE_ACTOR_PLANES = ['own', 'others', 'wild'] as const;

const Encoded = (dtype: string, shape: string, description: string) =>
  Type.Object(
    {
      dtype: Type.Literal(dtype),
      shape: Type.Array(Type.Integer(), { description: shape }),
      base64: Type.String({ description: 'the array as little-endian bytes, row-major, base64' }),
    },
    { description },
  );

export const ObserveArgs = Type.Object(
  {
    grid: Type.Optional(
      Type.Integer({ minimum: 4, maximum: 64, default: 16, description: 'cells a side: the map is folded into grid × grid cells whatever its size' }),
    ),
    anchors: Type.Optional(Type.Integer({ minimum: 0, maximum: 16, default: 4, description: 'how many of the kingdom’s cities to return as anchor points' })),
    kingdom_id: Type.Optional(
      Type.Integer({ description: "whose view: the caller's claimed kingdom by default; with partial intel and without read_all, only the claim" }),
    ),
  },
  { additionalProperties: false },
);

type Typed = Uint8Array | Uint16Array | Int32Array;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The bytes of a typed array as base64, little-endian whatever the machine. */
function encode(array: Typed, dtype: string, shape: number[]): { dtype: string; shape: number[]; base64: string } {
  let bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (!LITTLE_ENDIAN && array.BYTES_PER_ELEMENT > 1) {
    bytes = Buffer.from(bytes);
    if (array.BYTES_PER_ELEMENT === 2) bytes.swap16();
    else bytes.swap32();
  }
  return { dtype, shape, base64: bytes.toString('base64') };
}

export default defineCommand({
  name: 'observe',
  category: 'read',
  description:
    "A compact view of the world for one kingdom, as fixed-size arrays whatever the map's size: the map folded into " +
    'grid × grid cells with the commonest tile type of each cell (its index in list_tiles), live actors per cell (the ' +
    "kingdom's, other kingdoms', wild), the kingdom's land per cell, its counts (alive, population, cities, buildings, " +
    'territory) and the positions of its first cities. Each array is base64 of little-endian bytes with its dtype and ' +
    "shape. With partial intel and without read_all, only the caller's claimed kingdom is visible: the other two actor " +
    'planes are zero.',
  args: ObserveArgs,
  result: Type.Object({
    tick: Type.Integer(),
    width: Type.Integer({ description: 'map width in tiles' }),
    height: Type.Integer({ description: 'map height in tiles' }),
    grid: Type.Integer(),
    kingdom_id: Type.Optional(
      Type.Integer({ description: 'whose view this is; absent for none (no claim, or another kingdom named under the fog): every own figure is then 0' }),
    ),
    fogged: Type.Boolean({ description: 'true when other kingdoms and wild actors were hidden' }),
    tiles: Encoded('uint8', '[grid, grid]', 'the commonest tile type of each cell, as its index in list_tiles'),
    actors: Encoded('uint16', '[3, grid, grid]', 'live actors per cell: the kingdom’s, other kingdoms’, wild; capped at 65535'),
    territory: Encoded('uint16', '[grid, grid]', "tiles per cell owned by the kingdom's cities; capped at 65535"),
    counts: Encoded('int32', `[${OBSERVE_COUNTS.length}]`, `the kingdom's own numbers, in this order: ${OBSERVE_COUNTS.join(', ')}`),
    anchors: Encoded('int32', '[anchors, 2]', "x, y of the kingdom's first live cities by id; -1, -1 past the last one"),
  }),
  permission: { all: ['read_own_faction'] },
  binds: ['observeGrid', 'worldSize'],
  runsOnGameThread: true,
  frame: ({ game, args, caller }) => {
    const cells = args.grid ?? 16;
    const anchorCount = args.anchors ?? 4;
    // decisions §4 and §11: the read scope of list_cities and query_actors, applied to the grid.
    const scope = readScope(caller, args.kingdom_id);
    const kingdomId = scope.kind === 'none' ? null : (scope.kingdomId ?? caller.claimedKingdomId);
    const others = scope.kind === 'all';
    const view = game.observeGrid({ cells, kingdomId, others, anchors: anchorCount });
    const area = cells * cells;
    const actors = new Uint16Array(3 * area);
    // Only the caller's own plane unless it may see the rest, whatever the game returned.
    actors.set(view.actors.subarray(0, others ? 3 * area : area));
    const { alive, population, cities, buildings, territory } = view.counts;
    const counts = Int32Array.from([alive ? 1 : 0, population, cities, buildings, territory]);
    const anchors = new Int32Array(anchorCount * 2).fill(-1);
    view.anchors.slice(0, anchorCount).forEach((point, n) => anchors.set([point.x, point.y], n * 2));
    const size = game.worldSize();
    return {
      tick: game.currentTick(),
      width: size.width,
      height: size.height,
      grid: cells,
      // Left out rather than null: an answer names no kingdom but the caller's own (decisions §11).
      ...(kingdomId === null ? {} : { kingdom_id: kingdomId }),
      fogged: !others,
      tiles: encode(view.tiles.subarray(0, area), 'uint8', [cells, cells]),
      actors: encode(actors, 'uint16', [3, cells, cells]),
      territory: encode(view.territory.subarray(0, area), 'uint16', [cells, cells]),
      counts: encode(counts, 'int32', [OBSERVE_COUNTS.length]),
      anchors: encode(anchors, 'int32', [anchorCount, 2]),
    };
  },
});
