// Messages between the main loop, the game thread and the pool workers. Nothing here throws across
// a thread: failures travel as `Failure` and are rebuilt on arrival.
import type { MessagePort } from 'node:worker_threads';
import type { Outcome } from '../errors/failures.ts';
import type { Timings } from '../limits.ts';
import type { CallerContext } from './caller.ts';
import type { GameInitOptions } from './game-module.ts';
import type { ProgressReport } from './progress.ts';

// Failure and Outcome cross every thread boundary; they are declared with the error table they draw
// their codes from (errors/ sits below shared/), and every thread takes them from here.
export type { Failure, Outcome } from '../errors/failures.ts';

/** decisions §12: realtime advances the world with the frame timer; lockstep only through `step`. */
export type ClockMode = 'realtime' | 'lockstep';

/**
 * decisions §12: where an action or control entry ran, its place: the world tick when the game
 * thread started it, and its order among those started at that tick (from 0). One seed and the same
 * commands at the same places give the same world.
 */
export interface Place {
  tick: number;
  order: number;
}

/** One event as it crosses to the main loop; the main loop adds seq and at_utc. */
export interface RawEvent {
  kind: string;
  tick: number;
  fields: Record<string, unknown> | undefined;
  kingdomIds: number[];
}

/** Game thread → main loop: with an answer, or at the end of a frame (src/events/collector.ts). */
export interface EventBatch {
  type: 'events';
  events: RawEvent[];
  /** Date.now() when the batch left: at_utc of its events. */
  at: number;
  /** Events refused this frame because the buffer was full. */
  dropped: number;
}

/** Main loop → game thread, one per queued action, on the dispatcher port. */
export interface ActionMessage {
  /** Dispatcher entry (index of its state word). */
  cell: number;
  /** Unique per action, so a late reply for a reused cell is recognised. */
  id: number;
  command: string;
  /** 'run' for a game-thread command; a named frame phase for a pool command's frame call. */
  phase: string;
  input: unknown;
  caller: CallerContext;
  /** sharedNow() when queued: the 30 s deadline counts from here. */
  enqueuedAt: number;
  /** decisions §8: items it counts against the frame's 256 (a batch's items; 1 for a lone command). */
  items: number;
  /** decisions §14: the request asked for progress (a Progress-Token); absent otherwise. */
  progress?: true;
}

/** Game thread → main loop, on the dispatcher port: how far a started entry got (decisions §14). */
export interface ProgressMessage {
  kind: 'progress';
  cell: number;
  id: number;
  report: ProgressReport;
}

/**
 * Game thread → main loop, on the dispatcher port. `events`: what the game emitted since the last
 * batch left (decisions §7), handled before the answer. `place` (decisions §12): where an action or
 * control entry started (tick, order); reads have none.
 */
export type ActionReply = (
  | { kind: 'done'; cell: number; id: number; outcome: Outcome<unknown>; runMs: number; place?: Place }
  /** The game thread found the deadline passed and expired the entry itself. */
  | { kind: 'expired'; cell: number; id: number }
  /** The entry was already expired by the main loop; the game thread dropped it. */
  | { kind: 'skipped'; cell: number; id: number }
) & { events?: EventBatch };

/** Everything on the dispatcher port from the game thread: answers, event batches sent alone, progress. */
export type DispatcherPortMessage = ActionReply | EventBatch | ProgressMessage;

/** Static facts every thread may report (health, capabilities). */
export interface BridgeInfo {
  modVersion: string;
  gameVersion: string;
  engineVersion: string;
  gameAssemblySha256: string;
  multiAgent: boolean;
  scenario: string;
  agentCount: number;
  configDir: string;
  savesDir: string;
  /** decisions §12: which clock moves the world. */
  clock: ClockMode;
}

/** workerData of the game thread. */
export interface GameThreadData {
  sharedBuffer: SharedArrayBuffer;
  gameUrl: string;
  /** The embedder's extra command modules (file URLs). */
  commandModules: string[];
  init: GameInitOptions;
  fps: number;
  /** decisions §12: lockstep runs no frame timer; the world moves only through `step`. */
  clock: ClockMode;
  /** decisions §12: `[Game] max_savepoints`. */
  maxSavepoints: number;
  timings: Timings;
  /** The dispatcher's end of the action channel. */
  actionPort: MessagePort;
  /** Started again after the previous thread died (its world_generated event says so). */
  restarted?: boolean;
}

/** Game thread → main loop, on the worker's own channel. */
export type GameThreadEvent =
  | { type: 'ready'; functions: string[]; version: string; selfDriven: boolean; eventKinds: unknown; eventFog: unknown }
  | { type: 'log'; level: 'warn' | 'error' | 'info'; msg: string; detail?: unknown }
  | { type: 'fatal'; message: string }
  | { type: 'stopped' };

/** Main loop → game thread, on the worker's own channel. */
export type GameThreadControl = { type: 'stop' };

/** workerData of the pool workers. */
export interface PoolWorkerData {
  /** The real worker module (the tsx bootstrap imports it). */
  entry: string;
  sharedBuffer: SharedArrayBuffer;
  gameUrl: string;
  commandModules: string[];
  info: BridgeInfo;
  timings: Timings;
  /**
   * Int32 per task cell: the threadId of the worker that started the task (0: not started;
   * TASK_DEPARTED: its client went away first, so it never starts). Claimed by compare-and-swap.
   */
  startedBuffer: SharedArrayBuffer;
}

/** decisions §14: a pool task's cell once its client closed the connection before the task started. */
export const TASK_DEPARTED = -1;

/** A pool task: a whole pool command, or the pool step after a game-thread command's frame. */
export interface PoolTask {
  command: string;
  args: unknown;
  caller: CallerContext;
  /** Present for the step after a frame (screenshot encoding, save writing). */
  frameValue?: unknown;
  /** Names the task in the worker's 'started' note: the backstop terminates that worker. */
  taskId: number;
  /**
   * Where in `startedBuffer` the worker writes its threadId as the task starts, with no message to
   * the main loop; -1 when every cell is taken, and the worker sends the 'started' note instead.
   */
  startedCell: number;
  /** sharedNow() at the backstop: a task still queued by then never starts. */
  deadline: number;
  /** decisions §14: the request asked for progress; the worker reports on its RPC port. */
  progress?: true;
}

/** Pool worker → main loop requests on the worker's RPC port. */
export type PoolRequest =
  | { rid: number; op: 'frame'; command: string; phase: string; input: unknown; caller: CallerContext }
  | { rid: number; op: 'enqueue'; command: string; phase: string; input: unknown; onFailure?: string; caller: CallerContext }
  | { rid: number; op: 'session'; name: string; input: unknown; caller: CallerContext }
  /** decisions §7: emit an event from a pool step, or receive events (recv_events); taskId finds the request's admission slot. */
  | { rid: number; op: 'events'; name: 'emit' | 'recv'; input: unknown; caller: CallerContext; taskId: number }
  | { rid: number; op: 'started'; taskId: number }
  /** decisions §14: how far the task got; no reply. */
  | { rid: number; op: 'progress'; taskId: number; report: ProgressReport };

export interface PoolReply {
  rid: number;
  outcome: Outcome<unknown>;
}

/** First message of every pool worker on piscina's channel: its RPC port to the main loop. */
export interface PoolHello {
  gcbRpcPort: MessagePort;
  /** The worker's threadId, so the backstop can terminate the worker of a hung task. */
  threadId: number;
}
