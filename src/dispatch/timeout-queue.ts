// Timeouts of one fixed length under one timer: the pool's handler backstop, set for every pool
// task and nearly always cleared again when the task answers. A setTimeout and a clearTimeout cost
// the main loop about 4,000 instructions a pair (callgrind), more than the rest of a task's
// bookkeeping. Set with a clock that only goes forward and all of one length, they fall due in the
// order they were set, so one timer, for the earliest still pending, serves them all.

/** A timeout of the queue: cleared with TimeoutQueue.clear(). */
export interface QueuedTimeout {
  readonly due: number;
  /** null once fired or cleared. */
  fire: (() => void) | null;
}

/** A node timer fires when the loop's millisecond clock reaches it, which may be just short of `due` by performance.now(). */
const EARLY_MS = 1;

export class TimeoutQueue {
  readonly ms: number;
  readonly #now: () => number;
  readonly #entries: QueuedTimeout[] = [];
  /** Entries before it have fired or were cleared. */
  #head = 0;
  #timer: NodeJS.Timeout | null = null;

  /** `now`: the clock `set` is given times of (performance.now()). */
  constructor(ms: number, now: () => number = () => performance.now()) {
    this.ms = ms;
    this.#now = now;
  }

  /** Entries the queue's array holds, the fired or cleared front it skips included (tests). */
  get held(): number {
    return this.#entries.length;
  }

  /** Timeouts set and neither fired nor cleared (tests). */
  get pending(): number {
    let count = 0;
    for (let i = this.#head; i < this.#entries.length; i++) if (this.#entries[i]!.fire !== null) count++;
    return count;
  }

  /** Calls `fire` `ms` after `now` (the current time, which the caller has read already), unless cleared first. */
  set(now: number, fire: () => void): QueuedTimeout {
    const entry: QueuedTimeout = { due: now + this.ms, fire };
    this.#entries.push(entry);
    if (this.#timer === null) this.#arm(this.ms);
    return entry;
  }

  clear(entry: QueuedTimeout): void {
    entry.fire = null;
    // Most are cleared in the order they were set: the front is dropped at once, so what is kept
    // lives no longer than the tasks do, and with nothing pending the timer goes too.
    this.#dropCleared();
    if (this.#head === this.#entries.length) {
      // clearTimeout(undefined) does nothing: no timer, nothing to clear.
      clearTimeout(this.#timer ?? undefined);
      this.#timer = null;
    }
  }

  #arm(delay: number): void {
    this.#timer = setTimeout(this.#sweep, Math.max(delay, EARLY_MS));
  }

  readonly #sweep = (): void => {
    this.#timer = null;
    const now = this.#now();
    while (this.#head < this.#entries.length) {
      const entry = this.#entries[this.#head]!;
      const fire = entry.fire;
      // Dues only grow along the queue: an entry not yet due, pending or cleared, ends the sweep.
      if (entry.due > now + EARLY_MS) break;
      this.#head++;
      entry.fire = null;
      fire?.();
    }
    this.#dropCleared();
    if (this.#timer === null && this.#head < this.#entries.length) this.#arm(this.#entries[this.#head]!.due - now);
  };

  #dropCleared(): void {
    const entries = this.#entries;
    while (this.#head < entries.length && entries[this.#head]!.fire === null) this.#head++;
    if (this.#head === entries.length) {
      entries.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > entries.length) {
      entries.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
