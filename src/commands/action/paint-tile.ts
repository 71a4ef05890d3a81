import { Type } from '@sinclair/typebox';
import { badArgs } from '../../errors/bridge-error.ts';
import { LIMITS } from '../../limits.ts';
import { checkPoint, TileX, TileY } from '../shared/checks.ts';
import { defineCommand } from '../define.ts';

export const PaintTileArgs = Type.Object(
  {
    x: TileX('column of the brush centre'),
    y: TileY('row of the brush centre'),
    tile_id: Type.Optional(Type.String({ maxLength: LIMITS.idMaxLength, description: 'tile type to paint (list_tiles items); give it, top_id, or both' })),
    top_id: Type.Optional(
      Type.String({
        maxLength: LIMITS.idMaxLength,
        description: 'top tile to paint (list_tiles top_tiles; "none" clears the top tile); give it, tile_id, or both',
      }),
    ),
    radius: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 0, description: 'brush radius in tiles; 0 paints one tile' })),
  },
  { additionalProperties: false },
);

export default defineCommand({
  name: 'paint_tile',
  category: 'action',
  description:
    'Paint a tile type and/or a top tile over a disc around (x, y). Tiles of the disc off the map, or where the game ' +
    'says the top cannot stand, are counted as skipped.',
  args: PaintTileArgs,
  result: Type.Object({
    center: Type.Object({ x: Type.Integer(), y: Type.Integer() }),
    radius: Type.Integer(),
    tile_id: Type.Union([Type.String(), Type.Null()]),
    top_id: Type.Union([Type.String(), Type.Null()]),
    painted: Type.Integer(),
    skipped: Type.Integer(),
  }),
  permission: { all: ['action_global'] },
  binds: ['paintTile', 'listTiles', 'listTopTiles', 'worldSize'],
  runsOnGameThread: true,
  frame: ({ game, args, catalogues }) => {
    const radius = args.radius ?? 0;
    const tileId = args.tile_id ?? null;
    const topId = args.top_id ?? null;
    if (tileId === null && topId === null) throw badArgs('paint_tile needs tile_id, top_id or both');
    if (tileId !== null) catalogues.check('tiles', 'tile_id', tileId);
    if (topId !== null) catalogues.check('tops', 'top_id', topId);
    checkPoint(game, args.x, args.y);
    const outcome = game.paintTile(args.x, args.y, tileId, topId, radius);
    return { center: { x: args.x, y: args.y }, radius, tile_id: tileId, top_id: topId, painted: outcome.painted, skipped: outcome.skipped };
  },
});
