// Piscina entry: runs pool commands, and the pool step after a game-thread command's frame.
// Never throws back to piscina: every answer is an Outcome (errors lose their class across threads).
import { MessageChannel, parentPort, threadId, workerData } from 'node:worker_threads';
import { loadCommands } from '../src/commands/load.ts';
import type { CommandDef, PoolEnv } from '../src/commands/define.ts';
import { errorOf, toFailure, type Outcome } from '../src/errors/bridge-error.ts';
import { busyFailure, mainThreadTimeoutFailure } from '../src/errors/failures.ts';
import type { GameModule } from '../src/shared/game-module.ts';
import { kTick, sharedNow, viewSharedState } from '../src/shared/layout.ts';
import { importModule } from '../src/shared/modules.ts';
import { noProgress, spacedProgress } from '../src/shared/progress.ts';
import { TASK_DEPARTED, type PoolHello, type PoolReply, type PoolRequest, type PoolTask, type PoolWorkerData } from '../src/shared/protocol.ts';

const data = workerData as PoolWorkerData;
const shared = viewSharedState(data.sharedBuffer);
const startedBy = new Int32Array(data.startedBuffer);
// Loaded on the first task, so a worker is ready to take tasks as soon as it starts.
let commands: Promise<Map<string, CommandDef>> | undefined;
const loadCatalogue = () => (commands ??= loadCommands(data.commandModules).then((defs) => new Map(defs.map((def) => [def.name, def]))));

// Our own channel to the main loop, for frame and session calls. It is announced on piscina's
// worker channel, which piscina re-emits on the pool as a 'message' event.
const { port1: rpc, port2 } = new MessageChannel();
parentPort!.postMessage({ gcbRpcPort: port2, threadId } satisfies PoolHello, [port2]);
const waiting = new Map<number, (outcome: Outcome<unknown>) => void>();
let nextRid = 1;
rpc.on('message', (reply: PoolReply) => {
  const resolve = waiting.get(reply.rid);
  waiting.delete(reply.rid);
  resolve?.(reply.outcome);
});
rpc.unref();

type Unsent<T> = T extends unknown ? Omit<T, 'rid'> : never;

function call(request: Unsent<PoolRequest>): Promise<unknown> {
  const rid = nextRid++;
  return new Promise((resolve, reject) => {
    waiting.set(rid, (outcome) => (outcome.ok ? resolve(outcome.value) : reject(errorOf(outcome))));
    // A pending call keeps the worker's loop alive until its reply arrives.
    rpc.ref();
    rpc.postMessage({ ...request, rid } as PoolRequest);
  }).finally(() => {
    if (waiting.size === 0) rpc.unref();
  });
}

let gameModule: Promise<Required<GameModule>> | undefined;
function loadGame(): Promise<Required<GameModule>> {
  gameModule ??= importModule(data.gameUrl) as Promise<unknown> as Promise<Required<GameModule>>;
  return gameModule;
}

// Start loading the catalogue and the game module as the worker boots, so the first task that needs
// them does not pay for it (seconds under tsx).
void loadCatalogue().catch(() => {});
void loadGame().catch(() => {});

export default async function runTask(task: PoolTask): Promise<Outcome<unknown>> {
  // Queued past its backstop (the main loop has answered 504 already): it never runs.
  if (sharedNow() > task.deadline) {
    return mainThreadTimeoutFailure('the command waited past the handler backstop for a pool thread and never ran');
  }
  // Tell the main loop which worker runs the task: the one its backstop would terminate. Through
  // shared memory, read only by a backstop: a message would wake the main loop once more per task.
  // A compare-and-swap, as the main loop withdraws the task of a client gone (decisions §14): the
  // side that claims the cell first wins, and a withdrawn task never runs.
  if (task.startedCell >= 0) {
    if (Atomics.compareExchange(startedBy, task.startedCell, 0, threadId) === TASK_DEPARTED) {
      return busyFailure('the client closed its connection before the command started; it never ran');
    }
  } else rpc.postMessage({ rid: 0, op: 'started', taskId: task.taskId } satisfies PoolRequest);
  try {
    const def = (await loadCatalogue()).get(task.command);
    if (!def?.pool) throw new Error(`command ${task.command} has no pool step`);
    const env: PoolEnv<unknown> = {
      args: task.args,
      caller: task.caller,
      info: data.info,
      shared,
      timings: data.timings,
      frame: (phase, input) => call({ op: 'frame', command: task.command, phase, input, caller: task.caller }),
      session: (name, input) => call({ op: 'session', name, input, caller: task.caller }),
      enqueue: async (phase, input, onFailure) => {
        await call({ op: 'enqueue', command: task.command, phase, input, caller: task.caller, ...(onFailure ? { onFailure } : {}) });
      },
      game: loadGame,
      emit: async (kind, fields) => {
        await call({ op: 'events', name: 'emit', input: { kind, fields }, caller: task.caller, taskId: task.taskId });
      },
      recvEvents: (input) => call({ op: 'events', name: 'recv', input, caller: task.caller, taskId: task.taskId }),
      progress: task.progress
        ? spacedProgress(
            (report) => rpc.postMessage({ rid: 0, op: 'progress', taskId: task.taskId, report } satisfies PoolRequest),
            sharedNow,
            () => Atomics.load(shared.control, kTick),
          )
        : noProgress,
    };
    const value = await (def.pool as (env: PoolEnv<unknown>, frameValue: unknown) => unknown)(env, task.frameValue);
    return { ok: true, value };
  } catch (err) {
    return toFailure(err);
  }
}
