// One event stream's delivery (decisions §7): the backlog it asked for, then live events, written
// to its client one chunk at a time. What the client has not taken yet is bounded: past the bound
// the stream is closed, so a client that stops reading costs its buffer and nothing more, never a
// frame or another client. Its client resumes with Last-Event-ID.
import type { CallerContext } from '../shared/caller.ts';
import { canSee } from './audience.ts';
import type { StoredEvent } from './event.ts';

/** Where a stream's bytes go (hono's SSE stream in production, a fake in unit tests). */
export interface StreamSink {
  /** Resolves when the chunk has been taken by the connection (backpressure). */
  write(chunk: Uint8Array): Promise<unknown>;
  /** Ends the stream cleanly. */
  close(): Promise<unknown>;
  /** Drops the connection at once (a client that does not read cannot be ended cleanly). */
  destroy(): void;
}

/**
 * How a stream ended: `clean` (its buffer written, then the response ended), `overflow` (it fell a
 * whole buffer behind and its connection was dropped), `client` (the client went away).
 */
export type EndReason = 'clean' | 'overflow' | 'client';

export class Subscriber {
  caller: CallerContext;
  readonly kinds: ReadonlySet<string> | null;
  readonly #sink: StreamSink;
  readonly #limit: number;
  readonly #chunkBytes: number;
  readonly #onEnd: (subscriber: Subscriber, reason: EndReason) => void;
  #backlog: StoredEvent[];
  #backlogPos = 0;
  #preamble: Uint8Array | null;
  #pending: Uint8Array[] = [];
  #pendingHead = 0;
  #pendingBytes = 0;
  #inflightBytes = 0;
  #wake: (() => void) | null = null;
  #ended: EndReason | null = null;
  readonly done: Promise<void>;

  constructor(options: {
    caller: CallerContext;
    kinds: ReadonlySet<string> | null;
    sink: StreamSink;
    /** Written first: a `gap` frame, when the resume point is older than the history. */
    preamble: Uint8Array | null;
    backlog: StoredEvent[];
    limitBytes: number;
    chunkBytes: number;
    onEnd: (subscriber: Subscriber, reason: EndReason) => void;
  }) {
    this.caller = options.caller;
    this.kinds = options.kinds;
    this.#sink = options.sink;
    this.#limit = options.limitBytes;
    this.#chunkBytes = options.chunkBytes;
    this.#onEnd = options.onEnd;
    this.#backlog = options.backlog;
    this.#preamble = options.preamble;
    this.done = this.#pump();
  }

  get ended(): boolean {
    return this.#ended !== null;
  }

  /** Does this subscriber get `event` (its kinds filter, and the audience rule against its caller now)? */
  wants(event: StoredEvent): boolean {
    return (this.kinds === null || this.kinds.has(event.kind)) && canSee(this.caller, event);
  }

  /** A live event, already judged by wants(). */
  offer(event: StoredEvent): void {
    if (this.ended) return;
    this.#push(event.frameFor(this.caller));
  }

  /** Raw bytes (a keep-alive comment). */
  offerRaw(bytes: Uint8Array): void {
    if (this.ended) return;
    this.#push(bytes);
  }

  /** Ends the stream cleanly once what is buffered is written (bridge closing, agent removed). */
  end(): void {
    if (this.ended) return;
    this.#finish('clean');
    this.#wake?.();
  }

  /** The client went away. */
  abort(): void {
    if (this.ended) return;
    this.#letGo();
    this.#finish('client');
    this.#wake?.();
  }

  /** Drops the connection now (end() could not finish: a client that does not read). */
  destroy(): void {
    this.#letGo();
    this.#sink.destroy();
  }

  /** Nothing buffered is written any more: the frames go. */
  #letGo(): void {
    this.#pending = [];
    this.#backlog = [];
  }

  #push(bytes: Uint8Array): void {
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.byteLength;
    if (this.#pendingBytes + this.#inflightBytes > this.#limit) {
      this.#overflow();
      return;
    }
    const wake = this.#wake;
    if (wake) {
      this.#wake = null;
      wake();
    }
  }

  #overflow(): void {
    this.#letGo();
    this.#finish('overflow');
    this.#sink.destroy();
    this.#wake?.();
  }

  #finish(reason: EndReason): void {
    this.#ended = reason;
    this.#onEnd(this, reason);
  }

  async #pump(): Promise<void> {
    for (;;) {
      const chunk = this.#nextChunk();
      if (chunk === null) {
        if (this.ended) break;
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      this.#inflightBytes = chunk.byteLength;
      await this.#sink.write(chunk);
      this.#inflightBytes = 0;
    }
    if (this.#ended === 'clean') await this.#sink.close();
  }

  /** Up to chunkBytes: the gap preamble, the backlog, then live events, in that order. */
  #nextChunk(): Uint8Array | null {
    const parts: Uint8Array[] = [];
    let bytes = 0;
    if (this.#preamble !== null) {
      parts.push(this.#preamble);
      bytes += this.#preamble.byteLength;
      this.#preamble = null;
    }
    while (this.#backlogPos < this.#backlog.length && bytes < this.#chunkBytes) {
      const frame = this.#backlog[this.#backlogPos++]!.frameFor(this.caller);
      parts.push(frame);
      bytes += frame.byteLength;
    }
    if (this.#backlogPos >= this.#backlog.length) {
      if (this.#backlog.length > 0) {
        this.#backlog = [];
        this.#backlogPos = 0;
      }
      while (this.#pendingHead < this.#pending.length && bytes < this.#chunkBytes) bytes += this.#takePending(parts);
    }
    if (parts.length === 0) return null;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
  }

  #takePending(parts: Uint8Array[]): number {
    const bytes = this.#pending[this.#pendingHead]!;
    this.#pending[this.#pendingHead++] = EMPTY;
    if (this.#pendingHead === this.#pending.length) {
      this.#pending = [];
      this.#pendingHead = 0;
    }
    this.#pendingBytes -= bytes.byteLength;
    parts.push(bytes);
    return bytes.byteLength;
  }
}

const EMPTY = new Uint8Array(0);
