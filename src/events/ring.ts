// decisions §7 and §13: the last `[Bridge] event_history` events, in seq order, and no more than
// `maxBytes` of them: whichever bound comes first drops the oldest. Seqs are contiguous, so the
// event after any seq is found by arithmetic, not by search.

export class EventRing<T extends { readonly seq: number; readonly bytes: number }> {
  readonly capacity: number;
  readonly maxBytes: number;
  readonly #items: Array<T | undefined>;
  #start = 0;
  #size = 0;
  #bytes = 0;

  constructor(capacity: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    // Stryker disable next-line ArrayDeclaration: the length only sizes the array ahead; slots are set by index
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** The bytes of the events kept (each event's `bytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Keeps `item`, dropping the oldest while either bound would be passed. An item larger than
   * maxBytes alone is not kept, and nothing before it either: what is kept stays contiguous.
   */
  push(item: T): void {
    if (this.capacity === 0) return;
    const bytes = item.bytes;
    if (bytes > this.maxBytes) {
      this.#clear();
      return;
    }
    // An empty ring holds 0 bytes and bytes <= maxBytes: the loop stops there.
    while (this.#size === this.capacity || this.#bytes + bytes > this.maxBytes) this.#dropOldest();
    this.#items[(this.#start + this.#size) % this.capacity] = item;
    this.#size++;
    this.#bytes += bytes;
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

  #dropOldest(): void {
    const item = this.#items[this.#start]!;
    this.#items[this.#start] = undefined;
    this.#bytes -= item.bytes;
    this.#start = (this.#start + 1) % this.capacity;
    this.#size--;
  }

  #clear(): void {
    while (this.#size > 0) this.#dropOldest();
  }
}
