import { Type } from '@sinclair/typebox';
import { readScope } from '../shared/scope.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'list_cities',
  category: 'read',
  description:
    'The living cities, optionally of one kingdom. With partial intel and without read_all, only the cities of ' + "the caller's claimed kingdom are shown.",
  args: Type.Object({ kingdom_id: Type.Optional(Type.Integer({ description: 'only the cities of this kingdom' })) }, { additionalProperties: false }),
  result: Type.Object({
    items: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        kingdom_id: Type.Integer(),
        kingdom_name: Type.String(),
        leader_name: Type.Union([Type.String(), Type.Null()]),
        building_count: Type.Integer(),
        unit_count: Type.Integer(),
      }),
    ),
    count: Type.Integer(),
  }),
  permission: { all: ['read_own_faction'] },
  binds: ['listCities'],
  runsOnGameThread: true,
  frame: ({ game, args, caller }) => {
    const scope = readScope(caller, args.kingdom_id);
    if (scope.kind === 'none') return { items: [], count: 0 };
    const items = scope.kingdomId === undefined ? game.listCities() : game.listCities(scope.kingdomId);
    return { items, count: items.length };
  },
});
