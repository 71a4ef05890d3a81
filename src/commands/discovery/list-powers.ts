import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'list_powers',
  category: 'discovery',
  description:
    'The power catalogue (inputs of invoke_power.power_id): supports_radius says whether invoke_power ' +
    'accepts a radius, is_toggle marks a world-wide switch (one call flips it; pulses are refused).',
  args: NoArgs,
  result: Type.Object({
    items: Type.Array(
      Type.Object(
        { id: Type.String(), supports_radius: Type.Optional(Type.Boolean()), is_toggle: Type.Optional(Type.Boolean()) },
        { additionalProperties: true },
      ),
    ),
    count: Type.Integer(),
  }),
  permission: {},
  binds: ['listPowers'],
  runsOnGameThread: true,
  frame: ({ game }) => {
    const items = game.listPowers();
    return { items, count: items.length };
  },
});
