import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'list_speeds',
  category: 'discovery',
  description: 'The simulation speeds (inputs of set_speed.speed_id) with their multipliers, and the current one.',
  args: NoArgs,
  result: Type.Object({
    items: Type.Array(Type.Object({ id: Type.String(), multiplier: Type.Number() })),
    count: Type.Integer(),
    current: Type.String(),
  }),
  permission: {},
  binds: ['listSpeeds', 'currentSpeed'],
  runsOnGameThread: true,
  frame: ({ game }) => {
    const items = game.listSpeeds();
    return { items, count: items.length, current: game.currentSpeed() };
  },
});
