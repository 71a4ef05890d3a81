import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'list_actors',
  category: 'discovery',
  description: 'The actor catalogue: every actor asset id (inputs of spawn.entity_id) with its properties (race, where the game has races).',
  args: NoArgs,
  result: Type.Object({
    items: Type.Array(Type.Object({ id: Type.String(), race: Type.Optional(Type.String()) }, { additionalProperties: true })),
    count: Type.Integer(),
  }),
  permission: {},
  binds: ['listActors'],
  runsOnGameThread: true,
  frame: ({ game }) => {
    const items = game.listActors();
    return { items, count: items.length };
  },
});
