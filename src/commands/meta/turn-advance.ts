import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'turn_advance',
  category: 'meta',
  description: 'Pass the turn to the next agent in turn_order: by the holder, or forced by a god. BAD_ARGS when the session is not turn-based.',
  args: NoArgs,
  result: Type.Object({
    previous: Type.Union([Type.String(), Type.Null()]),
    next: Type.Union([Type.String(), Type.Null()]),
    forced_by_god: Type.Boolean(),
  }),
  permission: {},
  binds: [],
  runsOnGameThread: false,
  // decisions §13: it changes the turn, so a keyed retry must not pass it twice.
  keepsAnswer: true,
  pool: (env) => env.session('turn_advance'),
});
