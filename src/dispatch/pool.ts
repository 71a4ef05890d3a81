import { availableParallelism } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import { moduleUrl } from '../shared/modules.ts';
import { describeException, toFailure, type Outcome } from '../errors/bridge-error.ts';
import { busyFailure, mainThreadTimeoutFailure } from '../errors/failures.ts';
import { LIMITS, type Timings } from '../limits.ts';
import { DepartedSweep } from './departed-sweep.ts';
import type { CallerContext } from '../shared/caller.ts';
import { sharedNow, type SharedState } from '../shared/layout.ts';
import { TASK_DEPARTED, type BridgeInfo, type PoolHello, type PoolReply, type PoolRequest, type PoolTask, type PoolWorkerData } from '../shared/protocol.ts';
import type { ProgressSink } from '../shared/progress.ts';
import { DEPARTED_MESSAGE, type Client } from './game-queue.ts';
import { TimeoutQueue, type QueuedTimeout } from './timeout-queue.ts';

const WORKER = moduleUrl('../../workers/command-worker.ts', import.meta.url);
const TS_ENTRY = new URL('../../workers/ts-entry.mjs', import.meta.url);
/** Compiled: piscina's entry is CommonJS, so it never require()s an ES module (see pool-entry.cts). */
const CJS_ENTRY = new URL('../../workers/pool-entry.cjs', import.meta.url);

/** Pool threads when the config does not say: two at least, four at most. */
export const defaultPoolThreads = (): number => Math.max(2, Math.min(4, availableParallelism()));

/**
 * How piscina runs the pool, whatever its size (bench/servers/hono-pool.ts sets up its reference
 * with the same). Workers await frames and session calls, so a worker must not be pinned by one
 * task: several tasks share a worker, and atomics are async so a worker's event loop stays free to
 * receive its replies between tasks.
 */
export const POOL_SETTINGS = {
  concurrentTasksPerWorker: 16,
  // 'async': an idle worker waits on Atomics.waitAsync, so its event loop stays free for the
  // replies its pending tasks await; waking it is cheaper than a message (+30% whoami req/s).
  atomics: 'async',
  idleTimeout: Number.POSITIVE_INFINITY,
  // Wait/run histograms cost every task on the main loop; the bridge logs its own timings.
  recordTiming: false,
} as const;

export interface PoolHooks {
  /** A frame call from a pool command: queued on the dispatcher like any action. */
  frame(command: string, phase: string, input: unknown, caller: CallerContext): Promise<Outcome<unknown>>;
  /** Queue a frame phase without waiting for it; resolves once queued. */
  enqueue(command: string, phase: string, input: unknown, caller: CallerContext, onFailure?: string): Promise<Outcome<unknown>>;
  /** A call to the session state the main loop owns. */
  session(name: string, input: unknown, caller: CallerContext): Promise<Outcome<unknown>>;
  /**
   * decisions §7: the event layer (emit from a pool step, recv_events). `slot` is the admission
   * slot of the request the task serves, if any: a waiting recv_events gives it back.
   */
  events(name: 'emit' | 'recv', input: unknown, caller: CallerContext, slot: Releasable | undefined): Promise<Outcome<unknown>>;
}

/** An admission slot that can be given back early (Permit.release is idempotent). */
export interface Releasable {
  release(): void;
}

export interface PoolAnswer {
  outcome: Outcome<unknown>;
  runMs: number;
  /** The worker died or was terminated before answering: the command ran none of its own cleanup. */
  lost: boolean;
}

/** The command pool (piscina, run as POOL_SETTINGS says). */
export class CommandPool {
  readonly #pool: Piscina;
  readonly #timings: Timings;
  /** Tasks without a started cell, not answered yet → threadId of the worker that started them (null: still queued). */
  readonly #pending = new Map<number, number | null>();
  /** Per task cell, the threadId of the worker that started the task, written by that worker. */
  readonly #startedBy = new Int32Array(new SharedArrayBuffer(4 * LIMITS.poolStartedCells));
  readonly #freeCells = Array.from({ length: LIMITS.poolStartedCells }, (_, i) => LIMITS.poolStartedCells - 1 - i);
  /** Tasks' admission slots, for the event layer (a waiting recv_events gives its slot back). */
  readonly #slots = new Map<number, Releasable>();
  /** decisions §14: tasks' progress sinks, by task id, while they are unanswered. */
  readonly #progress = new Map<number, ProgressSink>();
  /**
   * decisions §14: per task cell, the client of a task not known to have started, and what answers
   * its request at once should the client go first. Arrays, so a task costs two stores.
   */
  readonly #clients: Array<Client | undefined> = [];
  readonly #departs: Array<((why: 'departed') => void) | undefined> = [];
  readonly #sweep = new DepartedSweep(() => this.#sweepDeparted());
  /** The tasks' handler backstops, one timer for all. */
  readonly #backstops: TimeoutQueue;
  #nextTaskId = 1;

  constructor(options: {
    shared: SharedState;
    gameUrl: string;
    commandModules: string[];
    info: BridgeInfo;
    timings: Timings;
    hooks: PoolHooks;
    threads?: number;
    memoryMb?: number;
    log?: Logger;
  }) {
    this.#timings = options.timings;
    this.#backstops = new TimeoutQueue(options.timings.handlerBackstopMs);
    const workerData: PoolWorkerData = {
      entry: WORKER.href,
      sharedBuffer: options.shared.buffer,
      gameUrl: options.gameUrl,
      commandModules: options.commandModules,
      info: options.info,
      timings: options.timings,
      startedBuffer: this.#startedBy.buffer as SharedArrayBuffer,
    };
    const threads = options.threads ?? defaultPoolThreads();
    this.#pool = new Piscina({
      // From .ts sources the worker starts through a tsx bootstrap (see start-thread.ts for why).
      filename: WORKER.pathname.endsWith('.ts') ? TS_ENTRY.href : CJS_ENTRY.href,
      workerData,
      minThreads: threads,
      maxThreads: threads,
      ...POOL_SETTINGS,
      // A runaway task dies alone (GAME_CRASH) and piscina replaces its worker; the process lives.
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb ?? 512 },
    });
    this.#pool.on('message', (message: PoolHello) => {
      if (message && typeof message === 'object' && 'gcbRpcPort' in message) {
        serveRpc(
          message.gcbRpcPort,
          options.hooks,
          (taskId) => {
            if (this.#pending.has(taskId)) this.#pending.set(taskId, message.threadId);
          },
          (taskId) => this.#slots.get(taskId),
          (taskId) => this.#progress.get(taskId),
        );
      }
    });
    // decisions §11: a worker that dies (game or command code throwing in a timer, a rejected
    // promise nobody handled) fails its own tasks, answered as GAME_CRASH, and piscina replaces it.
    // With no task on it, piscina reports the death here; it must never reach the process.
    this.#pool.on('error', (err: unknown) => {
      const exception = describeException(err);
      options.log?.error(
        { fault: { type: exception.type, message: (err as Error)?.message, stack: (err as Error)?.stack } },
        `a pool worker died outside any command (${exception.type}: ${exception.message}); the pool replaces it`,
      );
    });
  }

  /** Threads alive now (tests watch the pool replace a dead worker). */
  get threads(): number {
    return this.#pool.threads.length;
  }

  /**
   * Runs a pool task under the handler backstop: past it the worker running the task is terminated
   * (piscina replaces it) and the answer is 504 naming the backstop. piscina gets no abort signal:
   * it gives a task that carries one a worker to itself, so with every task carrying one a task
   * waiting for a frame held a whole thread. The price: terminating a hung task's worker also fails
   * the tasks that share it (GAME_CRASH), once a task has hung for the whole backstop.
   */
  async run(task: Omit<PoolTask, 'taskId' | 'deadline' | 'startedCell'>, slot?: Releasable, client?: Client, progress?: ProgressSink): Promise<PoolAnswer> {
    const t0 = performance.now();
    const taskId = this.#nextTaskId++;
    const backstopMs = this.#timings.handlerBackstopMs;
    const startedCell = this.#freeCells.pop() ?? -1;
    // Only a task without a started cell says who runs it by message (every cell taken: rare).
    if (startedCell < 0) this.#pending.set(taskId, null);
    if (slot) this.#slots.set(taskId, slot);
    if (progress) this.#progress.set(taskId, progress);
    let backstop: QueuedTimeout | undefined;
    // Field by field, not a spread: a spread literal costs a runtime call per field after it.
    const message: PoolTask = { command: task.command, args: task.args, caller: task.caller, taskId, startedCell, deadline: sharedNow() + backstopMs };
    if ('frameValue' in task) message.frameValue = task.frameValue;
    if (progress) message.progress = true;
    const running = this.#pool.run(message) as Promise<Outcome<unknown>>;
    let settled = true;
    try {
      // One promise for the answer, the backstop or the client gone, whichever comes first (cheaper than a race).
      const first = await new Promise<Outcome<unknown> | 'backstop' | 'departed'>((resolve, reject) => {
        backstop = this.#backstops.set(t0, () => resolve('backstop'));
        // decisions §14: a task whose client leaves before it started never starts (a task without a
        // cell, every cell taken, cannot be withdrawn: it runs).
        if (client !== undefined && startedCell >= 0) {
          this.#clients[startedCell] = client;
          this.#departs[startedCell] = resolve;
          this.#sweep.watch();
        }
        running.then(resolve, reject);
      });
      if (first === 'departed') {
        // The cell is claimed: the task, once a worker takes it, finds it so and returns at once.
        settled = false;
        return { outcome: busyFailure(DEPARTED_MESSAGE), runMs: performance.now() - t0, lost: false };
      }
      if (first !== 'backstop') return { outcome: first, runMs: performance.now() - t0, lost: false };
      // A task still queued skips itself (its deadline has passed); a started one goes with its worker.
      const threadId = startedCell >= 0 ? Atomics.load(this.#startedBy, startedCell) || null : this.#pending.get(taskId);
      // A queued task may still start (and write its cell) until it sees its deadline: the cell is
      // reused only once the task has settled.
      settled = false;
      const worker = threadId == null ? undefined : this.#pool.threads.find((w) => w.threadId === threadId);
      if (worker) {
        await worker.terminate();
        await running.catch(() => {}); // the cell comes back once the task is really gone
        settled = true;
      }
      const outcome = mainThreadTimeoutFailure(`the command did not finish within the ${backstopMs / 1000} s handler backstop and was aborted`);
      return { outcome, runMs: performance.now() - t0, lost: true };
    } catch (err) {
      // A worker never throws back (it answers Outcomes): a rejection means it died.
      return { outcome: toFailure(err), runMs: performance.now() - t0, lost: true };
    } finally {
      if (backstop) this.#backstops.clear(backstop);
      if (startedCell < 0) this.#pending.delete(taskId);
      this.#slots.delete(taskId);
      if (progress) this.#progress.delete(taskId);
      if (startedCell >= 0) {
        this.#clients[startedCell] = undefined;
        this.#departs[startedCell] = undefined;
        const free = () => {
          this.#startedBy[startedCell] = 0;
          this.#freeCells.push(startedCell);
        };
        if (settled) free();
        else void running.then(free, free);
      }
    }
  }

  async destroy(): Promise<void> {
    this.#sweep.stop();
    await this.#pool.destroy();
  }

  /**
   * decisions §14: a task whose client has gone and that no worker has started is withdrawn: its
   * cell is claimed by compare-and-swap (the worker claims it the same way as it starts the task,
   * so exactly one side wins) and its request answered now, which frees its slot. True while
   * a watched task has not started.
   */
  #sweepDeparted(): boolean {
    let watching = false;
    for (let cell = 0; cell < this.#clients.length; cell++) {
      const client = this.#clients[cell];
      if (client === undefined) continue;
      if (Atomics.load(this.#startedBy, cell) !== 0) {
        this.#clients[cell] = undefined; // started: it finishes, whatever its client does
        continue;
      }
      if (!client.destroyed) {
        watching = true;
        continue;
      }
      if (Atomics.compareExchange(this.#startedBy, cell, 0, TASK_DEPARTED) === 0) {
        this.#clients[cell] = undefined;
        this.#departs[cell]?.('departed');
      }
    }
    return watching;
  }
}

function serveRpc(
  port: MessagePort,
  hooks: PoolHooks,
  started: (taskId: number) => void,
  slotOf: (taskId: number) => Releasable | undefined,
  progressOf: (taskId: number) => ProgressSink | undefined,
): void {
  port.on('message', (request: PoolRequest) => {
    if (request.op === 'started') return started(request.taskId);
    // decisions §14: a report of a task still unanswered; no reply.
    if (request.op === 'progress') return progressOf(request.taskId)?.(request.report);
    const pending =
      request.op === 'frame'
        ? hooks.frame(request.command, request.phase, request.input, request.caller)
        : request.op === 'enqueue'
          ? hooks.enqueue(request.command, request.phase, request.input, request.caller, request.onFailure)
          : request.op === 'events'
            ? hooks.events(request.name, request.input, request.caller, slotOf(request.taskId))
            : hooks.session(request.name, request.input, request.caller);
    pending.then(
      (outcome) => port.postMessage({ rid: request.rid, outcome } satisfies PoolReply),
      (err: unknown) => port.postMessage({ rid: request.rid, outcome: toFailure(err) } satisfies PoolReply),
    );
  });
  // The port must not keep the process alive once the pool is destroyed.
  port.unref();
}
