import { Type } from '@sinclair/typebox';
import { ANCHOR_STAT_MEANING, ANCHOR_STATS } from '../../shared/anchor-stats.ts';
import type { GridObservation } from '../../shared/game-module.ts';
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
    rival_anchors: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 16,
        default: 0,
        description:
          'how many cities of the rival (the other live kingdom whose capital is nearest) to return in `rival`; only for a caller who sees every kingdom (read_all, or no partial intel)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The order of `economy`. */
export const OBSERVE_ECONOMY = ['favor', 'cap', 'income'] as const;
const STAT_LIST = ANCHOR_STATS.map((name) => `${name} (${ANCHOR_STAT_MEANING[name]})`).join(', ');

type Typed = Uint8Array | Uint16Array | Int32Array;

/** Exactly `length` values: the game's, cut or padded with zeros. */
function fitted(values: Int32Array, length: number): Int32Array {
  if (values.length === length) return values;
  const out = new Int32Array(length);
  out.set(values.subarray(0, length));
  return out;
}

function countsOf(counts: GridObservation['counts']): Int32Array {
  const { alive, population, cities, buildings, territory } = counts;
  return Int32Array.from([alive ? 1 : 0, population, cities, buildings, territory]);
}

function anchorArray(points: ReadonlyArray<{ x: number; y: number }>, count: number): Int32Array {
  const anchors = new Int32Array(count * 2).fill(-1);
  points.slice(0, count).forEach((point, n) => anchors.set([point.x, point.y], n * 2));
  return anchors;
}

function rivalAnswer(rival: NonNullable<GridObservation['rival']>, count: number) {
  return {
    kingdom_id: rival.kingdomId,
    counts: encode(countsOf(rival.counts), 'int32', [OBSERVE_COUNTS.length]),
    anchors: encode(anchorArray(rival.anchors, count), 'int32', [count, 2]),
    anchor_stats: encode(fitted(rival.anchorStats, count * ANCHOR_STATS.length), 'int32', [count, ANCHOR_STATS.length]),
  };
}
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
    "planes are zero. Where the game has them: each anchor city's figures (anchor_stats), the kingdom's budget under " +
    'rules that price actions (economy), and with rival_anchors, for a caller who sees every kingdom, the rival kingdom (rival).',
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
    anchor_stats: Type.Optional(
      Encoded('int32', `[anchors, ${ANCHOR_STATS.length}]`, `per anchor, in this order: ${STAT_LIST}; zeros past the last city (a game that has cities)`),
    ),
    economy: Type.Optional(
      Encoded(
        'int32',
        `[${OBSERVE_ECONOMY.length}]`,
        `the kingdom's budget under rules that price actions (grow, duel), in this order: ${OBSERVE_ECONOMY.join(', ')} (income: what its cities add, each every 32 ticks)`,
      ),
    ),
    rival: Type.Optional(
      Type.Union([
        Type.Object(
          {
            kingdom_id: Type.Integer(),
            counts: Encoded('int32', `[${OBSERVE_COUNTS.length}]`, 'its numbers, in the order of counts'),
            anchors: Encoded('int32', '[rival_anchors, 2]', 'x, y of its first live cities by id; -1, -1 past the last one'),
            anchor_stats: Encoded('int32', `[rival_anchors, ${ANCHOR_STATS.length}]`, 'per rival anchor, in the order of anchor_stats'),
          },
          { description: 'with rival_anchors > 0 and a caller who sees every kingdom: the rival kingdom; null when there is none' },
        ),
        Type.Null(),
      ]),
    ),
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
    const rivalCount = others ? (args.rival_anchors ?? 0) : 0;
    const view = game.observeGrid({ cells, kingdomId, others, anchors: anchorCount, ...(rivalCount > 0 && { rivalAnchors: rivalCount }) });
    const area = cells * cells;
    const actors = new Uint16Array(3 * area);
    // Only the caller's own plane unless it may see the rest, whatever the game returned.
    actors.set(view.actors.subarray(0, others ? 3 * area : area));
    const counts = countsOf(view.counts);
    const anchors = anchorArray(view.anchors, anchorCount);
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
      ...(view.anchorStats && {
        anchor_stats: encode(fitted(view.anchorStats, anchorCount * ANCHOR_STATS.length), 'int32', [anchorCount, ANCHOR_STATS.length]),
      }),
      ...(view.economy && { economy: encode(Int32Array.from([view.economy.favor, view.economy.cap, view.economy.income]), 'int32', [OBSERVE_ECONOMY.length]) }),
      ...(rivalCount > 0 && view.rival !== undefined && { rival: view.rival === null ? null : rivalAnswer(view.rival, rivalCount) }),
    };
  },
});
