import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export const UiStateResult = Type.Object({
  window_active: Type.Boolean(),
  current_window: Type.Union([Type.String(), Type.Null()]),
  config_paused: Type.Boolean(),
  effective_paused: Type.Boolean(),
  world_loading: Type.Boolean(),
});

export default defineCommand({
  name: 'get_ui_state',
  category: 'read',
  description: 'Whether a window is open and which one, the configured and effective pause, and whether a world is loading.',
  args: NoArgs,
  result: UiStateResult,
  permission: {},
  binds: ['getUiState'],
  runsOnGameThread: true,
  frame: ({ game }) => game.getUiState(),
});
