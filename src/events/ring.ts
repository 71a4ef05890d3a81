// decisions §7: the last `[Bridge] event_history` events, in seq order. Seqs are contiguous, so
// the event after any seq is found by arithmetic, not by search.

export class EventRing<T extends { readonly seq: number }> {
  readonly capacity: number;
  readonly #items: Array<T | undefined>;
  #start = 0;
  #size = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    if (this.capacity === 0) return;
    if (this.#size < this.capacity) {
      this.#items[(this.#start + this.#size) % this.capacity] = item;
      this.#size++;
    } else {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.capacity;
    }
  }

  /** The oldest seq kept, or undefined when nothing is kept. */
  get oldestSeq(): number | undefined {
    return this.#size === 0 ? undefined : this.#items[this.#start]!.seq;
  }

  /** Calls `visit` for each kept event with seq > `since`, oldest first, until it returns false. */
  forEachAfter(since: number, visit: (item: T) => boolean): void {
    const oldest = this.oldestSeq;
    if (oldest === undefined) return;
    for (let offset = Math.max(0, since + 1 - oldest); offset < this.#size; offset++) {
      if (!visit(this.#items[(this.#start + offset) % this.capacity]!)) return;
    }
  }
}
