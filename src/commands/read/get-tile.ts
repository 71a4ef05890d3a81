import { Type } from '@sinclair/typebox';
import { checkPoint, TileX, TileY } from '../shared/checks.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'get_tile',
  category: 'read',
  description: "One tile: its type and the actors standing on it, with its top tile, height and the actors' kingdoms where the game has them.",
  args: Type.Object({ x: TileX(), y: TileY() }, { additionalProperties: false }),
  result: Type.Object({
    x: Type.Integer(),
    y: Type.Integer(),
    tile_id: Type.String(),
    // Optional: what only some games have (the sandbox fills them all).
    top_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    height: Type.Optional(Type.Integer()),
    actors: Type.Array(Type.Object({ name: Type.String(), asset_id: Type.String(), kingdom_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) })),
    actor_count: Type.Integer(),
  }),
  permission: {},
  binds: ['getTile', 'worldSize'],
  requiresMainThread: true,
  frame: ({ game, args }) => {
    checkPoint(game, args.x, args.y);
    return game.getTile(args.x, args.y);
  },
});
