import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { busyFailure, mainThreadTimeoutFailure, type Failure, type Outcome } from '../errors/failures.ts';
import { LIMITS, type Timings } from '../limits.ts';
import { DepartedSweep } from './departed-sweep.ts';
import type { CallerContext } from '../shared/caller.ts';
import { ENTRY_EXPIRED, ENTRY_FREE, ENTRY_QUEUED, ENTRY_STARTED, kQueued, sharedNow, type SharedState } from '../shared/layout.ts';
import type { ActionMessage, ActionReply, DispatcherPortMessage, EventBatch, Place, ProgressMessage } from '../shared/protocol.ts';
import type { ProgressSink } from '../shared/progress.ts';
import { sleep } from '../shared/sleep.ts';

/** What the dispatcher answers for one queued action. */
export interface QueueAnswer {
  outcome: Outcome<unknown>;
  /** ms between queueing and the start (or the drop). */
  queueWaitMs: number;
  /** ms the action ran on the game thread (0 when it never started). */
  runMs: number;
  /**
   * Set when the answer came before the action finished (the 60 s backstop): it resolves when the
   * action really ends. The request keeps its slot until then, so in-flight work never exceeds
   * the limit (decisions §5).
   */
  settled: Promise<void> | null;
  /** decisions §12: where the action started (tick, order); absent when it never started. */
  place?: Place;
}

/**
 * decisions §14: the client of a request, as far as the dispatcher needs it: whether it has closed
 * its connection. Node's ServerResponse is one (`destroyed`), so nothing is built per request.
 */
export interface Client {
  readonly destroyed: boolean;
}

interface Entry {
  id: number;
  cell: number;
  enqueuedAt: number;
  answer: ((answer: QueueAnswer) => void) | null;
  /** The deadline, then the backstop: cleared whenever the entry is answered. */
  timer: NodeJS.Timeout | undefined;
  settle: (() => void) | null;
  /** decisions §14: where the request's progress goes, while it is unanswered. */
  progress: ProgressSink | undefined;
  /** decisions §14: the request's client; gone before the entry started, the entry never runs. */
  client: Client | undefined;
}

/** An action refused before the game saw it: the client may simply send it again. */
export const BUSY_MESSAGE = (reason: string) => `${reason}; nothing reached the world, retry later`;

/** decisions §14: what a request whose client went away is answered (nobody reads it; the log line and a keyed retry do). */
export const DEPARTED_MESSAGE = BUSY_MESSAGE('the client closed its connection before the command started, so it was taken off the queue and never ran');

export const TIMEOUT_MESSAGE = (ms: number) =>
  `the command waited more than ${ms / 1000} s for a game frame and was dropped before it ran; nothing reached the world, retry when the game is responsive`;

/**
 * The main-loop half of the dispatcher: queues actions for the game thread and owns their
 * deadlines. Every entry has a state word in shared memory; the 30 s deadline is a CAS from
 * queued to expired, so a stalled game thread still gets its waiters answered on time, and an
 * expired action can never start later.
 */
export class GameQueue {
  readonly #port: MessagePort;
  readonly #shared: SharedState;
  readonly #timings: Timings;
  readonly #entries = new Map<number, Entry>();
  readonly #free: number[] = [];
  #nextId = 1;
  #closed = false;
  /** decisions §14: the look for clients gone, armed while an entry with a client is queued. */
  readonly #sweep = new DepartedSweep(() => this.#sweepDeparted());

  /**
   * `onEvents` gets the game's event batches (decisions §7): those an answer carries before the
   * answer itself. The batches already waiting on the port (the first frame's, world_generated,
   * sent before the thread said it was ready) are handled here and now.
   */
  constructor(port: MessagePort, shared: SharedState, timings: Timings, onEvents: (batch: EventBatch) => void = () => {}) {
    this.#port = port;
    this.#shared = shared;
    this.#timings = timings;
    for (let cell = LIMITS.dispatcherEntries - 1; cell >= 0; cell--) this.#free.push(cell);
    const onMessage = (message: DispatcherPortMessage) => {
      if ('type' in message) return onEvents(message);
      if (message.kind === 'progress') return this.#onProgress(message);
      if (message.events) onEvents(message.events);
      this.#onReply(message);
    };
    for (let waiting = receiveMessageOnPort(port); waiting !== undefined; waiting = receiveMessageOnPort(port))
      onMessage(waiting.message as DispatcherPortMessage);
    port.on('message', onMessage);
  }

  /** Entries queued or running right now. */
  get pending(): number {
    return this.#entries.size;
  }

  /**
   * `items`: what it counts against a frame's 256 (decisions §8: an entry's items all run in one
   * frame). decisions §14: `progress` gets the entry's reports until it is answered; a `client`
   * gone before the entry started takes it off the queue: it never runs and is answered BUSY.
   */
  submit(command: string, phase: string, input: unknown, caller: CallerContext, items = 1, progress?: ProgressSink, client?: Client): Promise<QueueAnswer> {
    if (this.#closed) return Promise.resolve(immediate(busyFailure(BUSY_MESSAGE('the bridge is shutting down'))));
    const cell = this.#free.pop();
    if (cell === undefined) return Promise.resolve(immediate(busyFailure(BUSY_MESSAGE('the dispatcher queue is full'))));
    // Stryker disable next-line UpdateOperator: ids need only differ among the entries alive at once; counting down is as unique
    const id = this.#nextId++;
    const enqueuedAt = sharedNow();
    return new Promise<QueueAnswer>((resolve) => {
      const entry: Entry = { id, cell, enqueuedAt, answer: resolve, timer: undefined, settle: null, progress, client };
      this.#entries.set(cell, entry);
      Atomics.store(this.#shared.entries, cell, ENTRY_QUEUED);
      Atomics.add(this.#shared.control, kQueued, 1);
      const message: ActionMessage = { cell, id, command, phase, input, caller, enqueuedAt, items };
      if (progress) message.progress = true;
      this.#port.postMessage(message);
      // decisions §12: a lockstep game thread sleeps on kQueued between commands; after the post, so
      // it finds the message when it wakes. Nobody waits under realtime, and then it costs nothing.
      Atomics.notify(this.#shared.control, kQueued);
      entry.timer = setTimeout(() => this.#onDeadline(entry), this.#timings.queueDeadlineMs);
      // One look at a time, armed by an entry that has a client (a look too many finds nothing: it only costs a timer).
      if (client) this.#sweep.watch();
    });
  }

  /** Closing: what is still queued is answered BUSY and never runs; started actions finish. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#entries.values()) {
      if (Atomics.compareExchange(this.#shared.entries, entry.cell, ENTRY_QUEUED, ENTRY_EXPIRED) === ENTRY_QUEUED) {
        this.#answer(entry, busyFailure(BUSY_MESSAGE('the bridge is shutting down')), 0);
      }
    }
  }

  /** The game thread is gone: everything pending fails now. */
  fail(failure: Failure): void {
    for (const entry of this.#entries.values()) {
      this.#answer(entry, failure, 0);
      this.#release(entry);
    }
  }

  /** Resolves when no started action is left (or after `ms`). */
  async drained(ms: number): Promise<void> {
    let late = false;
    const limit = setTimeout(() => (late = true), ms);
    while (!late && [...this.#entries.values()].some((e) => Atomics.load(this.#shared.entries, e.cell) === ENTRY_STARTED)) {
      await sleep(10);
    }
    clearTimeout(limit);
  }

  /**
   * decisions §14: an entry whose client has gone and that has not started is expired, as a late
   * one is (the same compare-and-swap, so the game thread skips it), and answered BUSY; it frees its
   * slot with that answer. A look reads one flag per entry; true while one is still queued.
   */
  #sweepDeparted(): boolean {
    // Stryker disable next-line BooleanLiteral: a look too many finds nothing (it only costs a timer)
    let watching = false;
    for (const entry of this.#entries.values()) {
      if (entry.client === undefined || Atomics.load(this.#shared.entries, entry.cell) !== ENTRY_QUEUED) continue;
      if (!entry.client.destroyed) {
        watching = true;
        continue;
      }
      if (Atomics.compareExchange(this.#shared.entries, entry.cell, ENTRY_QUEUED, ENTRY_EXPIRED) === ENTRY_QUEUED) {
        this.#answer(entry, busyFailure(DEPARTED_MESSAGE), sharedNow() - entry.enqueuedAt);
      }
    }
    return watching;
  }

  /** decisions §14: a report of an entry still unanswered (the game thread's last ones may follow a backstop answer). */
  #onProgress(message: ProgressMessage): void {
    const entry = this.#entries.get(message.cell);
    if (entry === undefined || entry.id !== message.id || entry.answer === null) return;
    entry.progress?.(message.report);
  }

  #onDeadline(entry: Entry): void {
    const state = Atomics.compareExchange(this.#shared.entries, entry.cell, ENTRY_QUEUED, ENTRY_EXPIRED);
    if (state === ENTRY_QUEUED) {
      this.#answer(entry, mainThreadTimeoutFailure(TIMEOUT_MESSAGE(this.#timings.queueDeadlineMs)), sharedNow() - entry.enqueuedAt);
      return;
    }
    if (state === ENTRY_STARTED) {
      // Started in time: from here only the handler backstop, counted from the start, applies.
      const started = this.#shared.startedAt[entry.cell]!;
      const left = Math.max(0, started + this.#timings.handlerBackstopMs - sharedNow());
      entry.timer = setTimeout(() => this.#onBackstop(entry), left);
    }
  }

  /** Armed only while the entry is unanswered: #answer clears it. */
  #onBackstop(entry: Entry): void {
    const seconds = this.#timings.handlerBackstopMs / 1000;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    entry.settle = settle;
    const started = this.#shared.startedAt[entry.cell]!;
    const answer = entry.answer!;
    entry.answer = null;
    answer({
      outcome: mainThreadTimeoutFailure(
        `the command started but did not finish within the ${seconds} s handler backstop; it still runs to completion in the game`,
      ),
      queueWaitMs: started - entry.enqueuedAt,
      runMs: sharedNow() - started,
      settled,
    });
  }

  #onReply(reply: ActionReply): void {
    const entry = this.#entries.get(reply.cell);
    if (!entry || entry.id !== reply.id) return;
    if (reply.kind === 'done') {
      const started = this.#shared.startedAt[entry.cell]!;
      this.#answer(entry, reply.outcome, started - entry.enqueuedAt, reply.runMs, reply.place);
    } else {
      // 'expired': the game thread found the deadline passed. 'skipped': the deadline timer or close()
      // expired it first and has answered already, so #answer does nothing; the game thread has let go.
      this.#answer(entry, mainThreadTimeoutFailure(TIMEOUT_MESSAGE(this.#timings.queueDeadlineMs)), sharedNow() - entry.enqueuedAt);
    }
    this.#release(entry);
  }

  #answer(entry: Entry, outcome: Outcome<unknown>, queueWaitMs: number, runMs = 0, place?: Place): void {
    clearTimeout(entry.timer);
    const answer = entry.answer;
    if (!answer) return;
    entry.answer = null;
    answer(place ? { outcome, queueWaitMs, runMs, settled: null, place } : { outcome, queueWaitMs, runMs, settled: null });
  }

  /** Always after #answer, so no timer is left. */
  #release(entry: Entry): void {
    entry.settle?.();
    this.#entries.delete(entry.cell);
    Atomics.store(this.#shared.entries, entry.cell, ENTRY_FREE);
    this.#free.push(entry.cell);
  }
}

function immediate(failure: Failure): QueueAnswer {
  return { outcome: failure, queueWaitMs: 0, runMs: 0, settled: null };
}
