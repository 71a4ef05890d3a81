import { defineCommand, NoArgs } from '../define.ts';
import { PauseResult } from './pause.ts';

export default defineCommand({
  name: 'resume',
  category: 'control',
  description: 'Resume the simulation (clears the configured pause; an open window still freezes it).',
  args: NoArgs,
  result: PauseResult,
  permission: { all: ['advance_time'] },
  binds: ['setPaused'],
  runsOnGameThread: true,
  frame: ({ game }) => ({ previous_paused: game.setPaused(false), paused: false }),
});
