// The per-frame jobs as a frame handler sees them. The registry itself lives with the dispatcher
// (src/dispatch/jobs.ts); command modules know only this shape, so they never import dispatch.
import type { ClockMode, EventBatch, Place } from './protocol.ts';

/** A per-frame job: step() runs once a frame and returns true when the job is finished. */
export interface FrameJob {
  step(): boolean;
  /** Called instead of further steps when the bridge stops. */
  cancel?(): void;
}

/** What a frame handler may do with the game thread's job registry. */
export interface FrameJobs {
  /** At most this many jobs at once (spec Limits: 32). */
  readonly capacity: number;
  readonly size: number;
  /** false when the registry is full: the caller answers 503 BUSY naming the registry. */
  register(job: FrameJob): boolean;
}

/** The game thread's event collector as the drainer uses it (events/collector.ts builds it). */
export interface Collector {
  /** host.emit: cheap, never throws into game code. */
  emit(kind: string, fields?: Record<string, unknown>, kingdomIds?: readonly number[]): void;
  /** End of a frame: hand the batch over (nothing when there is none). */
  flush(): void;
  /** The batch collected so far, taken out to travel with an answer; null when there is none. */
  take(): EventBatch | null;
  /** Sends a taken batch on its own after all (its answer could not carry it). */
  send(batch: EventBatch): void;
}

/**
 * Called on the game thread after every tick of the world, with the tick just reached and what
 * moved it: a command's own tick (step) or a realtime frame (which may run several ticks at once).
 */
export type TickHook = (tick: number, movedBy: 'command' | 'frame') => void;

/**
 * An action or control command the game thread started, at its place: what a replay must repeat.
 * `code` is null when its frame step succeeded (or goes on over later ticks: a pulsed run), else
 * the failure's code.
 */
export interface PlacedCommand {
  place: Place;
  agent: string;
  name: string;
  args: unknown;
  code: string | null;
  /** What its frame step returned, when it succeeded at once. */
  result?: unknown;
}

/** Called on the game thread once per placed command, in the order of the places. */
export type CommandHook = (command: PlacedCommand) => void;

/**
 * The world's clock as a frame handler sees it, on the game thread: `step` moves it one tick at a
 * time, and anything that must follow the world tick by tick (a recorder's hashes) joins it.
 */
export interface WorldClock {
  readonly mode: ClockMode;
  /**
   * Closes one tick that a command ran itself (step, after game.advance(1)): the per-frame jobs
   * step once, the tick is published, that tick's events leave, and the tick hooks run. Under
   * lockstep this is the only place the jobs step.
   */
  endTick(): void;
  /**
   * Runs `hook` after every tick: each tick a step runs, and under realtime each frame that moved
   * the tick. Returns the function that removes it.
   */
  onTick(hook: TickHook): () => void;
  /**
   * Runs `hook` for every command that took a place and kept it (a refusal gives its place back),
   * once its frame step returned. Returns the function that removes it.
   */
  onCommand(hook: CommandHook): () => void;
  /** Runs `hook` after every world swap (generate_world, load_world: a different world). Returns the remover. */
  onWorldSwap(hook: () => void): () => void;
  /** Called by the one frame that swaps the world (commands/shared/world-swap.ts). */
  worldSwapped(): void;
  /**
   * Runs `hook` once when the game thread stops (the bridge closing), for last writes: the thread
   * waits for the promise it returns, if any, as long as the bridge gives it. Returns the remover.
   */
  onClose(hook: () => unknown): () => void;
}
