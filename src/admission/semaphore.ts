// spec step 3: the admission slots. A request takes a slot or waits at most the admission wait,
// then gets 503 BUSY. Released slots pass straight to the oldest waiter, so waiting is FIFO.

/** A held slot. release() is idempotent: the slot is returned exactly once whatever the path. */
export interface Permit {
  release(): void;
}

interface Waiter {
  resolve(permit: Permit | null): void;
  timer: NodeJS.Timeout;
  done: boolean;
  onAbort: (() => void) | null;
  signal: AbortSignal | undefined;
}

export class Admission {
  readonly limit: number;
  readonly waitMs: number;
  #inUse = 0;
  #waiters: Waiter[] = [];
  #head = 0;
  #live = 0;
  #closed = false;

  constructor(limit: number, waitMs: number) {
    this.limit = limit;
    this.waitMs = waitMs;
  }

  /** Slots held right now (tests and health of the bridge itself read it). */
  get inUse(): number {
    return this.#inUse;
  }

  /** Requests waiting for a slot right now. */
  get waiting(): number {
    return this.#live;
  }

  /**
   * A slot now, or after waiting; null on timeout (BUSY), on abort of `signal` (the client went
   * away: it must not take a slot later) and once closing.
   */
  acquire(signal?: AbortSignal | (() => AbortSignal)): Permit | null | Promise<Permit | null> {
    if (this.#closed) return null;
    if (this.#inUse < this.limit && this.waiting === 0) {
      if (typeof signal !== 'function' && signal?.aborted) return null;
      this.#inUse++;
      return this.#permit();
    }
    // Only a request that has to wait needs to hear about its client leaving; the signal is
    // created lazily because building one costs the fast path.
    const abortSignal = typeof signal === 'function' ? signal() : signal;
    if (abortSignal?.aborted) return null;
    return new Promise<Permit | null>((resolve) => {
      const waiter: Waiter = {
        resolve,
        done: false,
        signal: abortSignal,
        onAbort: null,
        timer: setTimeout(() => this.#giveUp(waiter), this.waitMs),
      };
      if (abortSignal) {
        waiter.onAbort = () => this.#giveUp(waiter);
        abortSignal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      this.#live++;
    });
  }

  /** Stop admitting; everyone waiting gets null (BUSY) at once. */
  close(): void {
    this.#closed = true;
    for (let waiter = this.#next(); waiter; waiter = this.#next()) this.#settle(waiter, null);
  }

  #permit(): Permit {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#handOver();
      },
    };
  }

  /** A freed slot goes to the oldest live waiter, or back to the pool. */
  #handOver(): void {
    const waiter = this.#next();
    if (waiter) this.#settle(waiter, this.#permit());
    else this.#inUse--;
  }

  #next(): Waiter | undefined {
    while (this.#head < this.#waiters.length) {
      const waiter = this.#waiters[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#waiters.length) {
        this.#waiters = this.#waiters.slice(this.#head);
        this.#head = 0;
      }
      if (!waiter.done) return waiter;
    }
    return undefined;
  }

  #giveUp(waiter: Waiter): void {
    if (!waiter.done) this.#settle(waiter, null);
  }

  #settle(waiter: Waiter, permit: Permit | null): void {
    waiter.done = true;
    this.#live--;
    clearTimeout(waiter.timer);
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(permit);
  }
}
