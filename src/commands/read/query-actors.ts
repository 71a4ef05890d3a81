import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import type { ActorQuery } from '../../shared/game-module.ts';
import { readScope } from '../shared/scope.ts';
import { defineCommand } from '../define.ts';

export const QueryActorsArgs = Type.Object(
  {
    race: Type.Optional(Type.String({ maxLength: LIMITS.idMaxLength, description: 'only actors of this race (list_actors items[].race)' })),
    kingdom_id: Type.Optional(Type.Integer({ description: 'only actors of this kingdom' })),
    in_rect: Type.Optional(
      Type.Object(
        {
          x: Type.Integer({ description: 'left column' }),
          y: Type.Integer({ description: 'top row' }),
          w: Type.Integer({ minimum: 1, description: 'width in tiles' }),
          h: Type.Integer({ minimum: 1, description: 'height in tiles' }),
        },
        { additionalProperties: false, description: 'only actors inside this rectangle' },
      ),
    ),
    alive: Type.Optional(Type.Boolean({ default: true, description: 'false lists the most recent deaths instead, newest first' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 500, description: 'page size' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'matches to skip' })),
  },
  { additionalProperties: false },
);

export default defineCommand({
  name: 'query_actors',
  category: 'read',
  description:
    'Actors matching race, kingdom (where the game has them) and rectangle filters, a page at a time. With partial intel and without ' +
    "read_all, only the caller's claimed kingdom is visible.",
  args: QueryActorsArgs,
  result: Type.Object({
    items: Type.Array(
      Type.Object({
        name: Type.String(),
        asset_id: Type.String(),
        kingdom_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        x: Type.Integer(),
        y: Type.Integer(),
      }),
    ),
    matched: Type.Integer(),
    returned: Type.Integer(),
    offset: Type.Integer(),
    limit: Type.Integer(),
    has_more: Type.Boolean(),
  }),
  permission: { all: ['read_own_faction'] },
  binds: ['queryActors'],
  runsOnGameThread: true,
  frame: ({ game, args, caller }) => {
    const limit = args.limit ?? 500;
    const offset = args.offset ?? 0;
    const scope = readScope(caller, args.kingdom_id);
    if (scope.kind === 'none') return { items: [], matched: 0, returned: 0, offset, limit, has_more: false };
    const query: ActorQuery = { alive: args.alive ?? true, limit, offset };
    if (args.race !== undefined) query.race = args.race;
    if (scope.kingdomId !== undefined) query.kingdom_id = scope.kingdomId;
    if (args.in_rect !== undefined) query.in_rect = args.in_rect;
    const { items, matched } = game.queryActors(query);
    return { items, matched, returned: items.length, offset, limit, has_more: offset + items.length < matched };
  },
});
