import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { toFailure, type Outcome } from '../errors/bridge-error.ts';
import { isRefusal } from '../errors/codes.ts';
import { LIMITS, type Timings } from '../limits.ts';
import type { CommandDef, FrameEnv } from '../commands/define.ts';
import type { GameModule } from '../shared/game-module.ts';
import {
  ENTRY_EXPIRED,
  ENTRY_QUEUED,
  ENTRY_STARTED,
  kFrames,
  kQueued,
  kTick,
  sActions,
  sBusyFrames,
  sFrames,
  sFullFrames,
  sFullOverheadMaxMs,
  sFullOverheadMs,
  sItems,
  sOverheadMs,
  sharedNow,
  type SharedState,
} from '../shared/layout.ts';
import type { ActionMessage, ActionReply, ClockMode } from '../shared/protocol.ts';
import type { Collector } from '../shared/frame.ts';
import { hFrameDuration, hFrameItems, hQueueWait, observe } from '../shared/histograms.ts';
import { JobRegistry } from './jobs.ts';
import { createPlaces } from './places.ts';
import { createWorldClock, type DrainerClock } from './world-clock.ts';

type FrameHandler = (env: FrameEnv<unknown>, input: unknown) => unknown;

const succeeded = (value: unknown): Outcome<unknown> => ({ ok: true, value });

export interface FrameDrainer {
  /**
   * One bridge frame: publish the tick, drain at most 32 actions (256 items), step the per-frame jobs.
   * `updateMs`: what the game's update took just before, when the bridge's own loop ran it.
   */
  drainFrame(updateMs?: number): void;
  /**
   * decisions §12, lockstep: drain at most 32 actions (256 items) now, as a frame does, but step no
   * per-frame job (they step once per tick a `step` runs, never by wall time).
   */
  drainQueued(): void;
  /** An entry drained but over the last drain's item budget waits: it runs first next time. */
  readonly carrying: boolean;
  readonly jobs: JobRegistry;
  readonly clock: DrainerClock;
}

/**
 * The game-thread half of the dispatcher. Actions wait in the MessagePort's own queue; each frame
 * pulls at most 32 (and 256 items) with receiveMessageOnPort, so whatever is not drained stays
 * queued in order.
 * spec: MAIN_THREAD_TIMEOUT is decided just before an action would start, by a compare-and-swap
 * on its state word that races the main loop's own deadline timer; exactly one side wins.
 */
export function createDrainer(options: {
  port: MessagePort;
  shared: SharedState;
  game: GameModule;
  commands: ReadonlyMap<string, CommandDef>;
  timings: Timings;
  /**
   * decisions §7: the events collected so far leave with each answer, on this same port, so the
   * main loop has them before the answer (a client that reads events after an answer sees what
   * its command emitted); the rest leave together at the end of drainFrame.
   */
  events?: Collector;
  /** The clock (ms, sharedNow's base) for deadlines and every figure in the stats; tests drive it by hand. */
  now?: () => number;
  /** decisions §12: which clock moves the world (default realtime). */
  clockMode?: ClockMode;
  /** decisions §12: `[Game] max_savepoints` (default 16). */
  maxSavepoints?: number;
  /** Something went wrong that no command answers for (a clock hook threw). */
  warn?: (message: string) => void;
}): FrameDrainer {
  const { port, shared, commands, timings } = options;
  const now = options.now ?? sharedNow;
  const emit = options.events?.emit ?? (() => {});
  const { control, entries, startedAt, stats, histograms } = shared;
  let handlerMs = 0; // time spent inside handlers this frame, so the stats count only the dispatcher
  let carried: ActionMessage | undefined; // drained but over the frame's item budget: runs first next frame
  const jobs = new JobRegistry(control);
  const game = options.game as Required<GameModule>;
  const maxSavepoints = options.maxSavepoints ?? LIMITS.maxSavepointsDefault;
  const places = createPlaces();

  function reply(message: ActionReply): void {
    const events = options.events?.take() ?? null;
    if (events === null) return port.postMessage(message);
    // The message is this reply's own: it carries the events with no copy of them made.
    message.events = events;
    try {
      port.postMessage(message);
    } catch {
      // Something in the events (or the answer) cannot be copied: the events go first on their own
      // (dropping only what cannot be copied), then the answer, as before.
      delete message.events;
      options.events!.send(events);
      port.postMessage(message);
    }
  }

  function publishTick(): void {
    Atomics.store(control, kTick, game.currentTick() | 0);
  }

  const clock = createWorldClock({
    mode: options.clockMode ?? 'realtime',
    currentTick: () => game.currentTick() | 0,
    closeTick: () => {
      jobs.step();
      publishTick();
      options.events?.flush();
      return Atomics.load(control, kTick);
    },
    ...(options.warn ? { warn: options.warn } : {}),
  });

  function frameEnv(args: unknown, caller: ActionMessage['caller']): FrameEnv<unknown> {
    return { game, args, caller, jobs, clock, maxSavepoints, shared, timings, emit, runFrame: (name, input) => runFrame(name, input, caller) };
  }

  /** One frame step. Never throws: what it throws is its failure. */
  function guarded(handler: FrameHandler, env: FrameEnv<unknown>, input: unknown): Outcome<unknown> | Promise<Outcome<unknown>> {
    try {
      const value = handler(env, input);
      // A started action is never cut off: a deferred one (pulses) answers when its job ends.
      if (value instanceof Promise) return value.then(succeeded, toFailure);
      return { ok: true, value };
    } catch (err) {
      return toFailure(err);
    }
  }

  /** A queued action's frame step, timed so the stats count only the dispatcher (steps it runs inside included). */
  function runStep(handler: FrameHandler, env: FrameEnv<unknown>, input: unknown): Outcome<unknown> | Promise<Outcome<unknown>> {
    const h0 = now();
    try {
      return guarded(handler, env, input);
    } finally {
      handlerMs += now() - h0;
    }
  }

  /** FrameEnv.runFrame: command `name`'s frame step inside the running one, with the frame a lone command of that name gets. */
  function runFrame(name: string, args: Record<string, unknown>, caller: ActionMessage['caller']): Outcome<unknown> | Promise<Outcome<unknown>> {
    const handler = commands.get(name)?.frame as FrameHandler | undefined;
    if (!handler) return toFailure(new Error(`no frame handler ${name}.run`));
    return guarded(handler, frameEnv(args, caller), args);
  }

  function start(action: ActionMessage, startMs: number): void {
    startedAt[action.slot] = startMs;
    const t0 = now();
    const def = commands.get(action.command);
    // decisions §12: only what may change the world takes a place, so reads and the bridge's own
    // calls in between never shift the order of the commands that a replay must repeat.
    let place = def?.category === 'action' || def?.category === 'control' ? places.take(game.currentTick() | 0) : undefined;
    const finish = (outcome: Outcome<unknown>) =>
      reply({ kind: 'done', slot: action.slot, id: action.id, outcome, runMs: now() - t0, ...(place && { place }) });
    const handler = (action.phase === 'run' ? def?.frame : def?.phases?.[action.phase]) as FrameHandler | undefined;
    if (!handler) return finish(toFailure(new Error(`no frame handler ${action.command}.${action.phase}`)));
    const outcome = runStep(handler, frameEnv(action.input, action.caller), action.input);
    if (outcome instanceof Promise) return void outcome.then(finish);
    // A refusal in the frame (an unknown asset, a tile off the map) changed nothing and is no
    // record: it gives its place back, so the next command's place does not depend on it.
    if (place && !outcome.ok && isRefusal(outcome.code)) {
      places.giveBack();
      place = undefined;
    }
    finish(outcome);
  }

  /** The next action: the one a full frame left over first (it stays first in line), else the port's next. */
  function next(): ActionMessage | undefined {
    if (carried) {
      const action = carried;
      carried = undefined;
      return action;
    }
    const received = receiveMessageOnPort(port);
    if (received === undefined) return undefined;
    Atomics.sub(control, kQueued, 1);
    return received.message as ActionMessage;
  }

  function drainFrame(updateMs = 0): void {
    drain(updateMs, true);
  }

  function drain(updateMs: number, stepJobs: boolean): void {
    publishTick();
    const f0 = now();
    handlerMs = 0;
    let drained = 0;
    let items = 0;
    // decisions §8: at most 32 entries and 256 items a frame; an entry of several items that does not
    // fit whole waits for the next frame, ahead of everything queued after it. gcb_frame_items (decisions §9) counts them too.
    for (; drained < LIMITS.actionsPerFrame; drained++) {
      const action = next();
      if (action === undefined) break;
      const weight = action.items;
      if (items + weight > LIMITS.itemsPerFrame) {
        carried = action;
        break;
      }
      items += weight;
      const startMs = now();
      observe(histograms, hQueueWait, (startMs - action.enqueuedAt) / 1000);
      if (startMs - action.enqueuedAt > timings.queueDeadlineMs) {
        const won = Atomics.compareExchange(entries, action.slot, ENTRY_QUEUED, ENTRY_EXPIRED) === ENTRY_QUEUED;
        reply({ kind: won ? 'expired' : 'skipped', slot: action.slot, id: action.id });
        continue;
      }
      if (Atomics.compareExchange(entries, action.slot, ENTRY_QUEUED, ENTRY_STARTED) !== ENTRY_QUEUED) {
        reply({ kind: 'skipped', slot: action.slot, id: action.id });
        continue;
      }
      start(action, startMs);
    }
    if (drained > 0) recordFrame(drained, items, now() - f0 - handlerMs);
    if (stepJobs) jobs.step();
    publishTick();
    if (stepJobs) clock.afterFrame();
    Atomics.add(control, kFrames, 1);
    stats[sFrames]! += 1;
    options.events?.flush();
    observe(histograms, hFrameItems, items);
    observe(histograms, hFrameDuration, (updateMs + now() - f0) / 1000);
  }

  function recordFrame(drained: number, items: number, overheadMs: number): void {
    stats[sBusyFrames]! += 1;
    stats[sActions]! += drained;
    stats[sItems]! += items;
    stats[sOverheadMs]! += overheadMs;
    if (drained === LIMITS.actionsPerFrame || items >= LIMITS.itemsPerFrame) {
      stats[sFullFrames]! += 1;
      stats[sFullOverheadMs]! += overheadMs;
      stats[sFullOverheadMaxMs] = Math.max(stats[sFullOverheadMaxMs]!, overheadMs);
    }
  }

  return {
    drainFrame,
    drainQueued: () => drain(0, false),
    get carrying() {
      return carried !== undefined;
    },
    jobs,
    clock,
  };
}
