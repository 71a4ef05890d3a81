// The game's interface state: the open window, the configured pause, the speed and the pending world
// swap. It is not part of the world (a save does not carry it). spec: any open window freezes the
// simulation, and get_world_state.paused then reports true even though nobody paused it.
import { SPEED_INDEX, SPEEDS, TICK_MS } from './assets.ts';

export const WELCOME_WINDOW = 'welcome';
/** At most this many ticks per update(): a slow frame is not followed by a slower catch-up. */
export const MAX_TICKS_PER_UPDATE = 16;

export interface Ui {
  window: string | null;
  configPaused: boolean;
  speedId: string;
  multiplier: number;
  worldLoading: boolean;
  /** Simulated milliseconds not yet spent on a tick. */
  pendingMs: number;
}

export function createUi(showWelcome: boolean): Ui {
  return { window: showWelcome ? WELCOME_WINDOW : null, configPaused: false, speedId: 'x1', multiplier: 1, worldLoading: false, pendingMs: 0 };
}

export function effectivePaused(ui: Ui): boolean {
  return ui.configPaused || ui.window !== null;
}

export function uiState(ui: Ui) {
  return {
    window_active: ui.window !== null,
    current_window: ui.window,
    config_paused: ui.configPaused,
    effective_paused: effectivePaused(ui),
    world_loading: ui.worldLoading,
  };
}

export function dismiss(ui: Ui): { dismissed: boolean; window: string | null } {
  const window = ui.window;
  ui.window = null;
  return window === null ? { dismissed: false, window: null } : { dismissed: true, window };
}

/** Returns the previous speed id; false when the id is unknown. */
export function changeSpeed(ui: Ui, speedId: string): string | false {
  const index = SPEED_INDEX.get(speedId);
  if (index === undefined) return false;
  const previous = ui.speedId;
  ui.speedId = speedId;
  ui.multiplier = SPEEDS[index]!.multiplier;
  return previous;
}

/**
 * How many ticks a frame of `dtMs` buys at the current speed. A paused world banks nothing, so
 * resuming does not replay the pause.
 */
export function ticksFor(ui: Ui, dtMs: number): number {
  if (effectivePaused(ui) || !(dtMs > 0) || !Number.isFinite(dtMs)) return 0;
  ui.pendingMs += dtMs * ui.multiplier;
  let ticks = Math.floor(ui.pendingMs / TICK_MS);
  ui.pendingMs -= ticks * TICK_MS;
  if (ticks > MAX_TICKS_PER_UPDATE) {
    ticks = MAX_TICKS_PER_UPDATE;
    ui.pendingMs = 0;
  }
  return ticks;
}
