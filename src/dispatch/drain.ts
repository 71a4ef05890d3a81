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
import type { ActionMessage, ActionReply, ClockMode, Place, ProgressMessage } from '../shared/protocol.ts';
import { noProgress, spacedProgress, type Progress } from '../shared/progress.ts';
import type { Collector, PlacedCommand } from '../shared/frame.ts';
import { hFrameDuration, hFrameItems, hQueueWait, observe } from '../shared/histograms.ts';
import { JobRegistry } from './jobs.ts';
import { createPlaces } from './places.ts';
import { createWorldClock, type DrainerClock } from './world-clock.ts';

type FrameHandler = (env: FrameEnv<unknown>, input: unknown) => unknown;

const succeeded = (value: unknown): Outcome<unknown> => ({ ok: true, value });
const noEmit = () => {};

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

export interface DrainerOptions {
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
  /**
   * decisions §15: commands the bridge itself sends (its internal frame calls). No agent waits on
   * them, so they never make a step give way.
   */
  bridgeCommands?: ReadonlySet<string>;
}

/**
 * The game-thread half of the dispatcher. Actions wait in the MessagePort's own queue; each frame
 * pulls at most 32 (and 256 items) with receiveMessageOnPort, so whatever is not drained stays
 * queued in order.
 * spec: MAIN_THREAD_TIMEOUT is decided just before an action would start, by a compare-and-swap
 * on its state word that races the main loop's own deadline timer; exactly one side wins.
 */
export function createDrainer(options: DrainerOptions): FrameDrainer {
  const { port, shared, commands, timings } = options;
  const now = options.now ?? sharedNow;
  const emit = options.events?.emit ?? noEmit;
  const { control, entries, startedAt, stats, histograms } = shared;
  let handlerMs = 0; // time spent inside handlers this frame, so the stats count only the dispatcher
  const inbox = createInbox(port, control, entries, options.bridgeCommands ?? NO_COMMANDS);
  const jobs = new JobRegistry(control);
  const game = options.game as Required<GameModule>;
  const places = createPlaces();
  const maxSavepoints = options.maxSavepoints ?? LIMITS.maxSavepointsDefault;
  const reply = createReplier(port, options.events);
  const publishTick = () => Atomics.store(control, kTick, game.currentTick() | 0);
  const clock = drainerClock(options, game, jobs, publishTick);

  const frameEnv = frameEnvs({ game, jobs, clock, maxSavepoints, shared, timings, emit }, commands, inbox);

  function start(action: ActionMessage, startMs: number): void {
    startedAt[action.cell] = startMs;
    const t0 = now();
    const def = commands.get(action.command);
    // decisions §12: only what may change the world takes a place, so reads and the bridge's own
    // calls in between never shift the order of the commands that a replay must repeat.
    let place = def?.category === 'action' || def?.category === 'control' ? places.take(game.currentTick() | 0) : undefined;
    const finish = (outcome: Outcome<unknown>) =>
      reply({ kind: 'done', cell: action.cell, id: action.id, outcome, runMs: now() - t0, ...(place && { place }) });
    const handler = (action.phase === 'run' ? def?.frame : def?.phases?.[action.phase]) as FrameHandler | undefined;
    if (!handler) return finish(toFailure(new Error(`no frame handler ${action.command}.${action.phase}`)));
    // Timed so the stats count only the dispatcher (the steps it runs inside included).
    const handlerStart = now();
    const outcome = guarded(handler, frameEnv(action.input, action.caller, progressOf(action, port, now, game)), action.input);
    handlerMs += now() - handlerStart;
    if (outcome instanceof Promise) {
      reportPlaced(clock, action, place, null); // goes on over later ticks (a pulsed run): placed where it started
      return void outcome.then(finish);
    }
    // A refusal in the frame (an unknown asset, a tile off the map) changed nothing and is no
    // record: it gives its place back, so the next command's place does not depend on it.
    if (place && !outcome.ok && isRefusal(outcome.code)) place = places.giveBack();
    reportPlaced(clock, action, place, outcome);
    finish(outcome);
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
      const action = inbox.next();
      if (action === undefined) break;
      const weight = action.items;
      if (items + weight > LIMITS.itemsPerFrame) {
        inbox.holdOver(action);
        break;
      }
      items += weight;
      const startMs = now();
      observe(histograms, hQueueWait, (startMs - action.enqueuedAt) / 1000);
      if (claimStart(action, startMs - action.enqueuedAt > timings.queueDeadlineMs, entries, reply)) start(action, startMs);
    }
    if (drained > 0) recordFrame(stats, drained, items, now() - f0 - handlerMs);
    if (stepJobs) jobs.step();
    publishTick();
    if (stepJobs) clock.afterFrame();
    options.events?.flush();
    countFrame(shared, items, (updateMs + now() - f0) / 1000);
  }

  return {
    drainFrame: (updateMs = 0) => drain(updateMs, true),
    drainQueued: () => drain(0, false),
    get carrying() {
      return inbox.holding;
    },
    jobs,
    clock,
  };
}

type Services = Pick<FrameEnv<unknown>, 'game' | 'jobs' | 'clock' | 'maxSavepoints' | 'shared' | 'timings' | 'emit'>;

/** The FrameEnv of each frame step: the drainer's services, and the entry's args, caller and progress. */
function frameEnvs(
  services: Services,
  commands: ReadonlyMap<string, CommandDef>,
  inbox: Pick<Inbox, 'othersWaiting'>,
): (args: unknown, caller: ActionMessage['caller'], progress: Progress) => FrameEnv<unknown> {
  const { game, jobs, clock, maxSavepoints, shared, timings, emit } = services;
  /** FrameEnv.runFrame: command `name`'s frame step inside the running one, with the frame a lone command of that name gets. */
  function runFrame(name: string, args: Record<string, unknown>, caller: ActionMessage['caller']): Outcome<unknown> | Promise<Outcome<unknown>> {
    const handler = commands.get(name)?.frame as FrameHandler | undefined;
    if (!handler) return toFailure(new Error(`no frame handler ${name}.run`));
    // An item's progress is its batch's: the batch reports items done.
    return guarded(handler, frameEnv(args, caller, noProgress), args);
  }
  function frameEnv(args: unknown, caller: ActionMessage['caller'], progress: Progress): FrameEnv<unknown> {
    return {
      game,
      args,
      caller,
      jobs,
      clock,
      maxSavepoints,
      shared,
      timings,
      emit,
      progress,
      runFrame: (name, input) => runFrame(name, input, caller),
      othersWaiting: () => inbox.othersWaiting(caller.agentId),
    };
  }
  return frameEnv;
}

/** decisions §14: an entry's reports, spaced on this thread, on the port its answer takes (so none follows the answer). */
function progressOf(action: ActionMessage, port: MessagePort, now: () => number, game: GameModule): Progress {
  if (action.progress !== true) return noProgress;
  const { cell, id } = action;
  return spacedProgress(
    (report) => port.postMessage({ kind: 'progress', cell, id, report } satisfies ProgressMessage),
    now,
    () => game.currentTick() | 0,
  );
}

/** The clock's command hooks (a recorder), for a command's own step; a phase of a pool command is part of that command. */
function reportPlaced(clock: DrainerClock, action: ActionMessage, place: Place | undefined, outcome: Outcome<unknown> | null): void {
  if (place === undefined || action.phase !== 'run') return;
  const command: PlacedCommand = { place, agent: action.caller.agentId, name: action.command, args: action.input, code: null };
  if (outcome?.ok === false) command.code = outcome.code;
  else if (outcome?.ok) command.result = outcome.value;
  clock.commandPlaced(command);
}

/**
 * Replies on the dispatcher port. decisions §7: the events collected so far leave with the reply, so
 * the main loop has them before the answer.
 */
function createReplier(port: MessagePort, events: Collector | undefined): (message: ActionReply) => void {
  return (message) => {
    const taken = events?.take() ?? null;
    if (taken === null) return port.postMessage(message);
    // The message is this reply's own: it carries the events with no copy of them made.
    message.events = taken;
    try {
      port.postMessage(message);
    } catch {
      // Something in the events (or the answer) cannot be copied: the events go first on their own
      // (dropping only what cannot be copied), then the answer, as before.
      delete message.events;
      events!.send(taken);
      port.postMessage(message);
    }
  };
}

const NO_COMMANDS: ReadonlySet<string> = new Set();

/**
 * The port's queue, with the entries taken off the port ahead of their turn in front of it, in
 * order: the one a full frame held over, and those a step looked at to see who waits (decisions §15).
 * kQueued counts both, what is on the port and what waits here: every entry not yet drained.
 */
type Inbox = ReturnType<typeof createInbox>;

function createInbox(port: MessagePort, control: Int32Array, entries: Int32Array, bridgeCommands: ReadonlySet<string>) {
  const ahead: ActionMessage[] = [];
  const receive = (): ActionMessage | undefined => receiveMessageOnPort(port)?.message as ActionMessage | undefined;
  return {
    next(): ActionMessage | undefined {
      const action = ahead.length > 0 ? ahead.shift() : receive();
      if (action !== undefined) Atomics.sub(control, kQueued, 1);
      return action;
    },
    /** The entry just taken goes back to the front, not drained: it runs first next time. */
    holdOver(action: ActionMessage): void {
      Atomics.add(control, kQueued, 1);
      ahead.unshift(action);
    },
    get holding(): boolean {
      return ahead.length > 0;
    },
    /**
     * decisions §15: whether an entry of an agent other than `agentId` waits, still queued (not
     * expired, not dropped for a client gone). What is on the port is taken off it, in order, to be
     * looked at. The entries here are few: each holds an admission slot, or has expired.
     */
    othersWaiting(agentId: string): boolean {
      // More queued than waits here: the rest is on the port (or about to be: the main loop counts before it posts).
      if (Atomics.load(control, kQueued) > ahead.length) for (let action = receive(); action !== undefined; action = receive()) ahead.push(action);
      return ahead.some(
        (action) => action.caller.agentId !== agentId && !bridgeCommands.has(action.command) && Atomics.load(entries, action.cell) === ENTRY_QUEUED,
      );
    },
  };
}

/** The frame statistics in shared memory: what the dispatcher itself costs the game thread (handlers excluded). */
function recordFrame(stats: Float64Array, drained: number, items: number, overheadMs: number): void {
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

/**
 * spec: whether a queued action may start. Past the queue deadline it expires instead; either way
 * the compare-and-swap on its state word races the main loop's own deadline timer, and the side
 * that loses answers nothing (a reply says it was skipped).
 */
function claimStart(action: ActionMessage, late: boolean, entries: Int32Array, reply: (message: ActionReply) => void): boolean {
  if (late) {
    const won = Atomics.compareExchange(entries, action.cell, ENTRY_QUEUED, ENTRY_EXPIRED) === ENTRY_QUEUED;
    reply({ kind: won ? 'expired' : 'skipped', cell: action.cell, id: action.id });
    return false;
  }
  if (Atomics.compareExchange(entries, action.cell, ENTRY_QUEUED, ENTRY_STARTED) === ENTRY_QUEUED) return true;
  reply({ kind: 'skipped', cell: action.cell, id: action.id });
  return false;
}

/** decisions §12: the world's clock as the drainer runs it; closing a stepped tick steps the jobs and sends its events. */
function drainerClock(options: DrainerOptions, game: Required<GameModule>, jobs: JobRegistry, publishTick: () => void): DrainerClock {
  return createWorldClock({
    mode: options.clockMode ?? 'realtime',
    currentTick: () => game.currentTick() | 0,
    closeTick: () => {
      jobs.step();
      publishTick();
      options.events?.flush();
      return Atomics.load(options.shared.control, kTick);
    },
    ...(options.warn ? { warn: options.warn } : {}),
  });
}

/** A frame's end in shared memory: the frame counters and decisions §9's frame histograms. */
function countFrame(shared: SharedState, items: number, durationS: number): void {
  Atomics.add(shared.control, kFrames, 1);
  shared.stats[sFrames]! += 1;
  observe(shared.histograms, hFrameItems, items);
  observe(shared.histograms, hFrameDuration, durationS);
}
