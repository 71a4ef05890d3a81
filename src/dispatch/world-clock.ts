// decisions §12: the world's clock on the game thread. The drainer owns one; commands see it as
// FrameEnv.clock. `step` closes each tick it runs through endTick(); anything that must follow the
// world tick by tick (a recorder's hashes) or forget it on a world swap (savepoints) hooks in here.
import type { TickHook, WorldClock } from '../shared/frame.ts';
import type { ClockMode } from '../shared/protocol.ts';

export interface DrainerClock extends WorldClock {
  /** Realtime: after a frame, runs the tick hooks when the frame moved the tick. */
  afterFrame(): void;
}

export function createWorldClock(options: {
  mode: ClockMode;
  /** Closes a tick: steps the per-frame jobs, publishes the tick, sends the tick's events; returns the tick. */
  closeTick(): number;
  currentTick(): number;
  /** A hook that threw: it is removed and reported once. */
  warn?(message: string): void;
}): DrainerClock {
  let tickHooks: TickHook[] = [];
  let swapHooks: Array<() => void> = [];
  let lastTick = options.currentTick();

  // Copy-on-write lists: a hook may remove itself (or add another) while the list runs.
  const remover =
    <H>(get: () => H[], set: (hooks: H[]) => void, hook: H) =>
    () =>
      set(get().filter((h) => h !== hook));

  function run<A extends unknown[]>(hooks: Array<(...args: A) => void>, remove: (hook: (...args: A) => void) => void, ...args: A): void {
    for (const hook of hooks) {
      try {
        hook(...args);
      } catch (err) {
        // A broken hook must never stop a step or a frame; it goes, said once.
        remove(hook);
        options.warn?.(`a clock hook threw and was removed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  function runTickHooks(tick: number): void {
    lastTick = tick;
    if (tickHooks.length > 0) run(tickHooks, (hook) => (tickHooks = tickHooks.filter((h) => h !== hook)), tick);
  }

  return {
    mode: options.mode,
    endTick() {
      runTickHooks(options.closeTick());
    },
    afterFrame() {
      const tick = options.currentTick();
      if (tick !== lastTick) runTickHooks(tick);
    },
    onTick(hook) {
      tickHooks = [...tickHooks, hook];
      return remover(
        () => tickHooks,
        (hooks) => (tickHooks = hooks),
        hook,
      );
    },
    onWorldSwap(hook) {
      swapHooks = [...swapHooks, hook];
      return remover(
        () => swapHooks,
        (hooks) => (swapHooks = hooks),
        hook,
      );
    },
    worldSwapped() {
      lastTick = options.currentTick();
      run(swapHooks, (hook) => (swapHooks = swapHooks.filter((h) => h !== hook)));
    },
  };
}
