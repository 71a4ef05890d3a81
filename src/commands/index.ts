// The command catalogue (decisions §3), in catalogue order. Imported by every thread, so command
// modules stay free of side effects and load heavy libraries lazily inside their pool steps.
import type { CommandDef } from './define.ts';
import health from './meta/health.ts';
import whoami from './meta/whoami.ts';
import getWorldState from './read/get-world-state.ts';
import getUiState from './read/get-ui-state.ts';
import pause from './control/pause.ts';
import resume from './control/resume.ts';
import dismissWindow from './control/dismiss-window.ts';

export const COMMANDS: readonly CommandDef[] = [
  health,
  whoami,
  getWorldState,
  getUiState,
  pause,
  resume,
  dismissWindow,
] as unknown as readonly CommandDef[];
