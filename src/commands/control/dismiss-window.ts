import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'dismiss_window',
  category: 'control',
  description: 'Close the open window (an open window freezes the simulation for everyone).',
  args: NoArgs,
  result: Type.Object({ dismissed: Type.Boolean(), window: Type.Union([Type.String(), Type.Null()]) }),
  permission: { all: ['advance_time'] },
  binds: ['dismissWindow'],
  runsOnGameThread: true,
  // decisions §4: exempt from the turn gate, since an open window freezes everyone.
  turnGated: false,
  frame: ({ game }) => game.dismissWindow(),
});
