import type { Outcome } from '../errors/bridge-error.ts';
import type { CommandDef } from '../commands/define.ts';
import type { CallerContext } from '../shared/caller.ts';
import type { Place } from '../shared/protocol.ts';
import type { ProgressSink } from '../shared/progress.ts';
import type { Client, QueueAnswer } from './game-queue.ts';
import type { CommandPool, Releasable } from './pool.ts';

export interface Execution {
  outcome: Outcome<unknown>;
  queueWaitMs: number;
  runMs: number;
  /** Set when the answer left before the work ended (backstop): the slot is held until it resolves. */
  settled: Promise<void> | null;
  /** decisions §12: where a game-thread command's frame step started (tick, order). */
  place?: Place;
}

/**
 * spec step 5: a command that runs on the game thread is queued straight on the dispatcher (no pool
 * hop, the main loop is the bottleneck); its optional pool step (encoding, writing) follows. A
 * command that does not need it runs on a pool thread and queues only its frame calls.
 */
export async function execute(
  def: CommandDef,
  args: unknown,
  caller: CallerContext,
  queue: {
    submit(
      command: string,
      phase: string,
      input: unknown,
      caller: CallerContext,
      items?: number,
      progress?: ProgressSink,
      client?: Client,
    ): Promise<QueueAnswer>;
  },
  pool: CommandPool,
  /** The request's admission slot: a pool command may give it back early (a waiting recv_events). */
  slot?: Releasable,
  /** decisions §14: the request's client; gone before the command started, it never runs. */
  client?: Client,
  /** decisions §14: where the command's progress goes (a request with a Progress-Token). */
  progress?: ProgressSink,
): Promise<Execution> {
  if (!def.runsOnGameThread) {
    const answer = await pool.run({ command: def.name, args, caller }, slot, client, progress);
    // A worker that died mid-command (OOM, exit, backstop) ran none of the command's own cleanup.
    if (answer.lost && def.onWorkerLost) await queue.submit(def.name, def.onWorkerLost, null, caller);
    return { outcome: answer.outcome, queueWaitMs: 0, runMs: answer.runMs, settled: null };
  }
  const framed = await queue.submit(def.name, 'run', args, caller, def.frameItems?.(args as never) ?? 1, progress, client);
  if (!def.pool || !framed.outcome.ok) return framed;
  // Its frame step ran: the pool step follows whatever the client does (a started command finishes).
  const after = await pool.run({ command: def.name, args, caller, frameValue: framed.outcome.value }, undefined, undefined, progress);
  const ran: Execution = { outcome: after.outcome, queueWaitMs: framed.queueWaitMs, runMs: framed.runMs + after.runMs, settled: null };
  if (framed.place) ran.place = framed.place;
  return ran;
}
