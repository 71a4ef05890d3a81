// decisions §12: the world's clock on the game thread. The drainer owns one; commands see it as
// FrameEnv.clock. `step` closes each tick it runs through endTick(); anything that must follow the
// world tick by tick (a recorder's hashes) or forget it on a world swap (savepoints) hooks in here.
import type { CommandHook, PlacedCommand, TickHook, WorldClock } from '../shared/frame.ts';
import type { ClockMode } from '../shared/protocol.ts';

export interface DrainerClock extends WorldClock {
  /** Realtime: after a frame, runs the tick hooks when the frame moved the tick. */
  afterFrame(): void;
  /** The drainer: a command kept its place; runs the command hooks. */
  commandPlaced(command: PlacedCommand): void;
  /** The game thread stops: runs the close hooks; resolves once what they returned has settled. */
  close(): Promise<void>;
}

/**
 * A list of hooks that may change while it runs (a hook removing itself): each run goes over the
 * list as it stood. A hook that throws is removed and reported, and never stops the others.
 */
class Hooks<A extends unknown[]> {
  #hooks: Array<(...args: A) => unknown> = [];
  readonly #warn: (message: string) => void;

  constructor(warn: (message: string) => void) {
    this.#warn = warn;
  }

  add(hook: (...args: A) => unknown): () => void {
    this.#hooks = [...this.#hooks, hook];
    return () => this.#remove(hook);
  }

  /** Runs every hook; returns what they returned. */
  run(...args: A): unknown[] {
    const results: unknown[] = [];
    for (const hook of this.#hooks) {
      try {
        results.push(hook(...args));
      } catch (err) {
        this.#remove(hook);
        this.#warn(`a clock hook threw and was removed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return results;
  }

  #remove(hook: (...args: A) => unknown): void {
    this.#hooks = this.#hooks.filter((h) => h !== hook);
  }
}

export function createWorldClock(options: {
  mode: ClockMode;
  /** Closes a tick: steps the per-frame jobs, publishes the tick, sends the tick's events; returns the tick. */
  closeTick(): number;
  currentTick(): number;
  /** A hook that threw (it is removed). */
  warn?(message: string): void;
}): DrainerClock {
  const warn = options.warn ?? (() => {});
  const ticks = new Hooks<Parameters<TickHook>>(warn);
  const swaps = new Hooks<[]>(warn);
  const commands = new Hooks<Parameters<CommandHook>>(warn);
  const closing = new Hooks<[]>(warn);
  let lastTick = options.currentTick();

  const ticked = (tick: number, movedBy: 'command' | 'frame') => {
    lastTick = tick;
    ticks.run(tick, movedBy);
  };

  return {
    mode: options.mode,
    endTick: () => ticked(options.closeTick(), 'command'),
    afterFrame() {
      const tick = options.currentTick();
      if (tick !== lastTick) ticked(tick, 'frame');
    },
    onTick: (hook) => ticks.add(hook),
    onCommand: (hook) => commands.add(hook),
    commandPlaced: (command) => commands.run(command),
    onWorldSwap: (hook) => swaps.add(hook),
    worldSwapped() {
      // The new world's tick is where it starts, not a tick that ran.
      lastTick = options.currentTick();
      swaps.run();
    },
    onClose: (hook) => closing.add(hook),
    async close() {
      await Promise.allSettled(closing.run());
    },
  };
}
