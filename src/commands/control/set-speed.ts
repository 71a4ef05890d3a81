import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'set_speed',
  category: 'control',
  description: 'Set the simulation speed (an id from list_speeds); answers the new multiplier and the previous speed id.',
  args: Type.Object({ speed_id: Type.String({ maxLength: LIMITS.idMaxLength, description: 'a speed id from list_speeds' }) }, { additionalProperties: false }),
  result: Type.Object({ speed_id: Type.String(), multiplier: Type.Number(), previous: Type.String() }),
  permission: { all: ['advance_time'] },
  binds: ['setSpeed', 'listSpeeds'],
  runsOnGameThread: true,
  frame: ({ game, args, catalogues }) => {
    catalogues.check('speeds', 'speed_id', args.speed_id);
    const speed = game.listSpeeds().find((s) => s.id === args.speed_id);
    const previous = game.setSpeed(args.speed_id);
    return { speed_id: args.speed_id, multiplier: speed?.multiplier ?? 1, previous };
  },
});
