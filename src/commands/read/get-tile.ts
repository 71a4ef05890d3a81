import { Type } from '@sinclair/typebox';
import { checkPoint, TileX, TileY } from '../shared/checks.ts';
import { readScope } from '../shared/scope.ts';
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
  runsOnGameThread: true,
  frame: ({ game, args, caller }) => {
    checkPoint(game, args.x, args.y);
    const tile = game.getTile(args.x, args.y);
    // decisions §11: the read scope holds for get_tile too, or scanning tiles would show what
    // query_actors hides; actors and actor_count then count the caller's own kingdom only.
    const scope = readScope(caller, undefined);
    if (scope.kind === 'all') return tile;
    const actors = scope.kind === 'kingdom' ? tile.actors.filter((actor) => actor.kingdom_id === scope.kingdomId) : [];
    return { ...tile, actors, actor_count: actors.length };
  },
});
