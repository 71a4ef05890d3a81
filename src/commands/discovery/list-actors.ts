import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'list_actors',
  category: 'discovery',
  description: 'The actor catalogue: every creature asset id (inputs of spawn.entity_id) with its race and properties.',
  args: NoArgs,
  result: Type.Object({
    items: Type.Array(Type.Object({ id: Type.String(), race: Type.String() }, { additionalProperties: true })),
    count: Type.Integer(),
  }),
  permission: {},
  binds: ['listActors'],
  requiresMainThread: true,
  frame: ({ game }) => {
    const items = game.listActors();
    return { items, count: items.length };
  },
});
