import { Type } from '@sinclair/typebox';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'savepoint_drop',
  category: 'control',
  description: 'Forget savepoint `id` and free the memory it holds.',
  args: Type.Object({ id: Type.Integer({ minimum: 1, description: 'a savepoint id' }) }, { additionalProperties: false }),
  result: Type.Object({ id: Type.Integer(), dropped: Type.Literal(true) }),
  permission: { all: ['control_world'] },
  binds: ['snapshot', 'restore', 'stateHash'],
  runsOnGameThread: true,
  frame: ({ args, savepoints }) => {
    savepoints.drop(args.id);
    return { id: args.id, dropped: true as const };
  },
});
