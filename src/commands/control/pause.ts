import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export const PauseResult = Type.Object({ previous_paused: Type.Boolean(), paused: Type.Boolean() });

export default defineCommand({
  name: 'pause',
  category: 'control',
  description: 'Pause the simulation (the configured pause; an open window also freezes it).',
  args: NoArgs,
  result: PauseResult,
  permission: { all: ['advance_time'] },
  binds: ['setPaused'],
  runsOnGameThread: true,
  frame: ({ game }) => ({ previous_paused: game.setPaused(true), paused: true }),
});
