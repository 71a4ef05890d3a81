import { Type } from '@sinclair/typebox';
import { readScope } from '../shared/scope.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'list_kingdoms',
  category: 'read',
  description: 'The living kingdoms; include_wild adds the wild (animal and monster) factions.',
  args: Type.Object(
    { include_wild: Type.Optional(Type.Boolean({ default: false, description: 'also list the wild factions' })) },
    { additionalProperties: false },
  ),
  result: Type.Object({
    items: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        race: Type.String(),
        king_name: Type.Union([Type.String(), Type.Null()]),
        capital_id: Type.Union([Type.Integer(), Type.Null()]),
        cities_count: Type.Integer(),
        units_count: Type.Integer(),
        wild: Type.Boolean(),
        favor: Type.Optional(
          Type.Integer({
            description:
              'what the kingdom may still spend, under rules that price actions (grow, duel); with partial intel and without read_all, only for the claimed kingdom',
          }),
        ),
      }),
    ),
    count: Type.Integer(),
  }),
  // decisions §4: read_own_faction; list_kingdoms is not filtered by the kingdom claim.
  permission: { all: ['read_own_faction'] },
  binds: ['listKingdoms'],
  runsOnGameThread: true,
  frame: ({ game, args, caller }) => {
    const items = game.listKingdoms(args.include_wild ?? false);
    // decisions §4: the list is not filtered, but a rival's budget is its own business under the fog.
    if (readScope(caller, undefined).kind !== 'all') {
      for (const item of items) if (item.id !== caller.claimedKingdomId) delete item.favor;
    }
    return { items, count: items.length };
  },
});
