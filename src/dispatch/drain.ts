import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { toFailure, type Outcome } from '../errors/bridge-error.ts';
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
  sOverheadMs,
  sharedNow,
  type SharedState,
} from '../shared/layout.ts';
import type { ActionMessage, ActionReply } from '../shared/protocol.ts';
import type { Collector } from '../events/collector.ts';
import { hFrameDuration, hFrameItems, hQueueWait, observe } from '../shared/histograms.ts';
import { JobRegistry } from './jobs.ts';

export interface FrameDrainer {
  /**
   * One bridge frame: publish the tick, drain at most 32 actions, step the per-frame jobs.
   * `updateMs`: what the game's update took just before, when the bridge's own loop ran it.
   */
  drainFrame(updateMs?: number): void;
  readonly jobs: JobRegistry;
}

/**
 * The game-thread half of the dispatcher. Actions wait in the MessagePort's own queue; each frame
 * pulls at most 32 with receiveMessageOnPort, so whatever is not drained stays queued in order.
 * spec: MAIN_THREAD_TIMEOUT is decided just before an action would start, by a compare-and-swap
 * on its state word that races the main loop's own deadline timer; exactly one side wins.
 */
export function createDrainer(options: {
  port: MessagePort;
  shared: SharedState;
  game: GameModule;
  commands: ReadonlyMap<string, CommandDef>;
  timings: Timings;
  /** decisions §7: the frame's events leave as one batch at the end of drainFrame. */
  events?: Collector;
}): FrameDrainer {
  const { port, shared, commands, timings } = options;
  const emit = options.events?.emit ?? (() => {});
  const { control, entries, startedAt, stats, histograms } = shared;
  let handlerMs = 0; // time spent inside handlers this frame, so the stats count only the dispatcher
  const jobs = new JobRegistry(control);
  const game = options.game as Required<GameModule>;

  function reply(message: ActionReply): void {
    port.postMessage(message);
  }

  function publishTick(): void {
    Atomics.store(control, kTick, game.currentTick() | 0);
  }

  function start(action: ActionMessage, now: number): void {
    startedAt[action.slot] = now;
    const def = commands.get(action.command);
    const handler = action.phase === 'run' ? def?.frame : def?.phases?.[action.phase];
    const t0 = performance.now();
    const finish = (outcome: Outcome<unknown>) => reply({ kind: 'done', slot: action.slot, id: action.id, outcome, runMs: performance.now() - t0 });
    if (!handler) {
      finish(toFailure(new Error(`no frame handler ${action.command}.${action.phase}`)));
      return;
    }
    const env: FrameEnv<unknown> = { game, args: action.input, caller: action.caller, jobs, shared, timings, emit };
    try {
      const h0 = performance.now();
      const value = (handler as (env: FrameEnv<unknown>, input: unknown) => unknown)(env, action.input);
      handlerMs += performance.now() - h0;
      if (value instanceof Promise) {
        // A started action is never cut off: a deferred one (pulses) answers when its job ends.
        value.then(
          (settled) => finish({ ok: true, value: settled }),
          (err: unknown) => finish(toFailure(err)),
        );
      } else {
        finish({ ok: true, value });
      }
    } catch (err) {
      finish(toFailure(err));
    }
  }

  function drainFrame(updateMs = 0): void {
    publishTick();
    const f0 = performance.now();
    handlerMs = 0;
    let drained = 0;
    // decisions §9 gcb_frame_items: the items this frame ran (a command alone is one item).
    let items = 0;
    for (; drained < LIMITS.actionsPerFrame; drained++) {
      const received = receiveMessageOnPort(port);
      if (received === undefined) break;
      Atomics.sub(control, kQueued, 1);
      const action = received.message as ActionMessage;
      const now = sharedNow();
      observe(histograms, hQueueWait, (now - action.enqueuedAt) / 1000);
      if (now - action.enqueuedAt > timings.queueDeadlineMs) {
        const won = Atomics.compareExchange(entries, action.slot, ENTRY_QUEUED, ENTRY_EXPIRED) === ENTRY_QUEUED;
        reply({ kind: won ? 'expired' : 'skipped', slot: action.slot, id: action.id });
        continue;
      }
      if (Atomics.compareExchange(entries, action.slot, ENTRY_QUEUED, ENTRY_STARTED) !== ENTRY_QUEUED) {
        reply({ kind: 'skipped', slot: action.slot, id: action.id });
        continue;
      }
      start(action, now);
      items++;
    }
    if (drained > 0) recordFrame(drained, performance.now() - f0 - handlerMs);
    jobs.step();
    publishTick();
    Atomics.add(control, kFrames, 1);
    stats[sFrames]! += 1;
    options.events?.flush();
    observe(histograms, hFrameItems, items);
    observe(histograms, hFrameDuration, (updateMs + performance.now() - f0) / 1000);
  }

  function recordFrame(drained: number, overheadMs: number): void {
    stats[sBusyFrames]! += 1;
    stats[sActions]! += drained;
    stats[sOverheadMs]! += overheadMs;
    if (drained === LIMITS.actionsPerFrame) {
      stats[sFullFrames]! += 1;
      stats[sFullOverheadMs]! += overheadMs;
      if (overheadMs > stats[sFullOverheadMaxMs]!) stats[sFullOverheadMaxMs] = overheadMs;
    }
  }

  return { drainFrame, jobs };
}
