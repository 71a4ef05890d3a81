import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { describeException, type ExceptionInfo } from '../errors/bridge-error.ts';
import { busyFailure, gameCrashFailure } from '../errors/failures.ts';
import type { CallerContext } from '../shared/caller.ts';
import { kStopping, type SharedState } from '../shared/layout.ts';
import type { EventBatch, GameThreadControl, GameThreadData, GameThreadEvent } from '../shared/protocol.ts';
import { moduleUrl } from '../shared/modules.ts';
import { sleep } from '../shared/sleep.ts';
import { startThread } from '../shared/start-thread.ts';
import type { ProgressSink } from '../shared/progress.ts';
import { BUSY_MESSAGE, GameQueue, type Client, type QueueAnswer } from './game-queue.ts';

const GAME_THREAD = moduleUrl('../../workers/game-thread.ts', import.meta.url);

export type ReadyEvent = Extract<GameThreadEvent, { type: 'ready' }>;

interface Running {
  worker: Worker;
  port: MessagePort;
  queue: GameQueue;
  /** What the thread threw outside any call (a timer, an unhandled rejection), once it has. */
  fault: { error: Error | null };
}

/**
 * The game thread's lifecycle on the main loop: start it, hand actions to its queue, and, should the
 * thread die (a fatal error in game code, out of memory), answer what was pending with GAME_CRASH and
 * start a fresh one, so the bridge can never be wedged by a dead world.
 */
export class GameThreadHost {
  readonly ready: ReadyEvent;
  readonly #data: Omit<GameThreadData, 'actionPort'>;
  readonly #shared: SharedState;
  readonly #log: Logger;
  readonly #onEvents: (batch: EventBatch) => void;
  #running: Running | null;
  #stopping = false;
  #restarts = 0;
  #onRestart: () => void = () => {};

  private constructor(
    ready: ReadyEvent,
    running: Running,
    data: Omit<GameThreadData, 'actionPort'>,
    shared: SharedState,
    log: Logger,
    onEvents: (batch: EventBatch) => void,
  ) {
    this.ready = ready;
    this.#onEvents = onEvents;
    this.#running = running;
    this.#data = data;
    this.#shared = shared;
    this.#log = log;
    this.#watch(running);
  }

  /** `onEvents` gets the game thread's event batches (decisions §7), from the first frame on. */
  static async start(
    data: Omit<GameThreadData, 'actionPort'>,
    shared: SharedState,
    log: Logger,
    onEvents: (batch: EventBatch) => void = () => {},
  ): Promise<GameThreadHost> {
    const { ready, running } = await launch(data, shared, log, onEvents);
    return new GameThreadHost(ready, running, data, shared, log, onEvents);
  }

  /** Times the thread was restarted after dying. */
  get restarts(): number {
    return this.#restarts;
  }

  get pending(): number {
    return this.#running?.queue.pending ?? 0;
  }

  /** Called after a restart (a fresh world: claims must be resolved again). */
  onRestart(callback: () => void): void {
    this.#onRestart = callback;
  }

  /** GameQueue.submit on the running thread's queue (decisions §14: `progress`, `client`). */
  submit(command: string, phase: string, input: unknown, caller: CallerContext, items = 1, progress?: ProgressSink, client?: Client): Promise<QueueAnswer> {
    if (!this.#running) {
      const message = this.#stopping ? 'the bridge is shutting down' : 'the game thread is restarting';
      return Promise.resolve({ outcome: busyFailure(BUSY_MESSAGE(message)), queueWaitMs: 0, runMs: 0, settled: null });
    }
    return this.#running.queue.submit(command, phase, input, caller, items, progress, client);
  }

  /** Closing, step 1: queued actions are answered BUSY and never run; started ones go on. */
  closeQueue(): void {
    this.#stopping = true;
    this.#running?.queue.close();
  }

  /** Closing, step 2: wait briefly for started actions, then stop and end the thread. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const running = this.#running;
    if (!running) return;
    await running.queue.drained(50);
    Atomics.store(this.#shared.control, kStopping, 1);
    running.worker.postMessage({ type: 'stop' } satisfies GameThreadControl);
    // 'stopped' means the game has cleaned up; the thread itself may be kept alive by the game's own
    // timers or ports, so it is ended then rather than after the whole 200 ms.
    const finished = new Promise((done) => {
      running.worker.on('message', (event: GameThreadEvent) => event.type === 'stopped' && done(undefined));
      running.worker.once('exit', done);
    });
    await Promise.race([finished, sleep(200, { unref: true })]);
    await running.worker.terminate();
    running.queue.fail(busyFailure(BUSY_MESSAGE('the bridge is shutting down')));
    running.port.close();
    this.#running = null;
  }

  #watch(running: Running): void {
    running.worker.on('message', (event: GameThreadEvent) => {
      if (event.type === 'log') this.#log[event.level](event.detail ?? {}, event.msg);
      // A self-driven game whose run() failed after startup leaves a thread with no frames: end it,
      // so it is replaced like any other dead game thread instead of timing every command out.
      if (event.type === 'fatal') {
        this.#log.error({ reason: event.message }, 'the game stopped running frames; ending its thread');
        void running.worker.terminate();
      }
    });
    running.worker.once('exit', (code) => {
      if (this.#stopping || this.#running !== running) return;
      this.#running = null;
      const thrown = running.fault.error;
      const exception: ExceptionInfo = thrown ? describeException(thrown) : { type: 'GameThreadExit', message: `exit code ${code}`, stack_top: '' };
      this.#log.error(
        { code, ...(thrown ? { fault: { type: exception.type, message: thrown.message, stack: thrown.stack } } : {}) },
        'the game thread died; answering what was pending with GAME_CRASH and starting a fresh world',
      );
      const crash = gameCrashFailure(
        thrown
          ? `the game thread died: game code threw outside any command (${exception.type}: ${exception.message}); the bridge is starting a fresh world`
          : `the game thread exited (code ${code}); the bridge is starting a fresh world`,
        exception,
      );
      running.queue.fail(crash);
      running.port.close();
      void this.#restart();
    });
  }

  async #restart(): Promise<void> {
    try {
      // A fresh world: its world_generated event says it replaced a dead thread's (decisions §7).
      const { running } = await launch({ ...this.#data, restarted: true }, this.#shared, this.#log, this.#onEvents);
      if (this.#stopping) {
        await running.worker.terminate();
        return;
      }
      this.#restarts++;
      this.#running = running;
      this.#watch(running);
      this.#onRestart();
    } catch (err) {
      this.#log.error({ err: (err as Error).message }, 'the game thread could not be restarted; retrying in 1 s');
      if (!this.#stopping) setTimeout(() => void this.#restart(), 1000).unref();
    }
  }
}

async function launch(
  data: Omit<GameThreadData, 'actionPort'>,
  shared: SharedState,
  log: Logger,
  onEvents: (batch: EventBatch) => void,
): Promise<{ ready: ReadyEvent; running: Running }> {
  const { port1, port2 } = new MessageChannel();
  const workerData: GameThreadData = { ...data, actionPort: port2 };
  const worker = startThread(GAME_THREAD, { workerData, transferList: [port2], name: 'gcb-game' });
  // decisions §11: listened to from the first moment to the last. A Worker 'error' with no listener
  // is re-thrown on the main loop, so game code throwing in a timer or leaving a rejected promise
  // would end the whole process; with one, the thread alone dies and 'exit' replaces it.
  const fault: Running['fault'] = { error: null };
  worker.on('error', (err: Error) => (fault.error ??= err));
  try {
    const ready = await waitForReady(worker);
    // The first frame's events (world_generated) are on port1 already: the queue takes them at once.
    return { ready, running: { worker, port: port1, queue: new GameQueue(port1, shared, data.timings, onEvents), fault } };
  } catch (err) {
    port1.close();
    await worker.terminate();
    log.debug({ err: (err as Error).message }, 'game thread start failed');
    throw err;
  }
}

function waitForReady(worker: Worker): Promise<ReadyEvent> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (event: GameThreadEvent) => {
      if (event.type === 'ready') {
        cleanup();
        resolve(event);
      } else if (event.type === 'fatal') {
        cleanup();
        reject(new Error(`the game module failed to start: ${event.message}`));
      }
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new Error(`the game thread failed to start: ${err.message}`));
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`the game thread exited with code ${code} during startup`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
