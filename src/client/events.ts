// client.events(): GET /events (decisions §7) as an async iterator that outlives its connection.
// A dropped, ended or silent connection is opened again with Last-Event-ID, so the caller sees
// every event it may see once, in seq order: none twice (seqs at or below the last one are
// skipped), none lost while the history still holds them (past it, a gap notice says which).
// Reading is pulled by the caller: a caller that stops iterating stops reading, the bridge closes
// the stream at its buffer, and the next read reconnects from where the caller was.
import { BridgeCallError, BridgeConnectionError, callErrorOf } from './errors.ts';
import { parseRetryAfter } from './retry.ts';
import { SseParser, type SseItem } from './sse.ts';
import { sleep } from '../shared/sleep.ts';

/** One event: the envelope of docs/events.md and the kind's own fields. */
export interface BridgeEvent {
  seq: number;
  kind: string;
  tick: number;
  at_utc: string;
  kingdom_ids: number[];
  /** Present when fog cut fields of an event naming other kingdoms too: the names of the fields cut. */
  fogged?: string[];
  [field: string]: unknown;
}

/**
 * decisions §14: how far a command the caller is running got (`event: progress`, live only: no seq,
 * never in the history). Only streams that ask for the kind `progress` get them.
 */
export interface ProgressEvent {
  /** The Progress-Token the command was sent with. */
  progress_token: string;
  /** The command. */
  name: string;
  done: number;
  total: number;
  /** What it is doing now, for commands counted in phases (generate_world, load_world, save_world). */
  phase?: string;
  [field: string]: unknown;
}

/** The stream is about to connect again. */
export interface StreamReconnectEvent {
  type: 'reconnect';
  /** Consecutive failed or lost connections so far (1 for the first). */
  attempt: number;
  delayMs: number;
  /** Why: the connection dropped, the bridge ended it, nothing came for idleTimeoutMs, 503 BUSY, or no bridge answered. */
  reason: 'dropped' | 'ended' | 'idle' | 'busy' | 'unreachable' | 'run_changed';
  /** The resume point sent as Last-Event-ID (undefined: live only). */
  lastSeq: number | undefined;
  error?: Error;
}

/** The bridge no longer holds events the stream should have had (decisions §7: `event: gap`). */
export interface StreamGapEvent {
  type: 'gap';
  from: number;
  to: number;
  /** What the stream does about it: `history` goes on with the kept events, `restart` skips to live ones. */
  action: 'history' | 'restart';
}

/** A connection is open (the first one, and each reconnection). */
export interface StreamConnectedEvent {
  type: 'connected';
  /** X-Event-Run: the bridge run (seqs start again at 1 in a new run); undefined from an older bridge. */
  run: string | undefined;
  /** X-Event-Seq: the newest seq this credential may see when the stream opened (read_all: the newest of all). */
  seq: number | undefined;
}

export type StreamNotice = StreamReconnectEvent | StreamGapEvent | StreamConnectedEvent;

export interface EventStreamOptions {
  /** Only these kinds (GET /capabilities event_kinds). */
  kinds?: readonly string[];
  /** Start with the kept events after this seq (0: everything kept). Default: live events only. */
  since?: number;
  /**
   * A gap (the history no longer holds some events after the resume point): `history` (default)
   * goes on with the kept events; `restart` skips the kept ones and goes on with live events, for a
   * caller that rebuilds its picture from the list commands after a gap.
   */
  onGap?: 'history' | 'restart';
  /** Consecutive failed connections before giving up (the last error is thrown). Default: retry forever. */
  maxRetries?: number;
  /** The first wait before reconnecting; it doubles each time. Default 250 ms. */
  baseDelayMs?: number;
  /** The longest wait. Default 5 s. */
  maxDelayMs?: number;
  /** No byte (event or keep-alive comment) for this long means a dead connection: reconnect. Default 45 s (the bridge comments every 15 s). */
  idleTimeoutMs?: number;
  /** Ends the stream (the iterator finishes; a pending next() resolves done). */
  signal?: AbortSignal;
  /** Told of reconnections, gaps and each opened connection. */
  onNotice?: (notice: StreamNotice) => void;
  /** Told of each `progress` event (with `progress` among `kinds`); they are not yielded, having no seq. */
  onProgress?: (event: ProgressEvent) => void;
}

/** What the stream needs of its client. */
export interface EventSource {
  url: string;
  token: string;
  fetch: typeof globalThis.fetch;
}

export const EVENT_STREAM_DEFAULTS = Object.freeze({ baseDelayMs: 250, maxDelayMs: 5_000, idleTimeoutMs: 45_000 });

/** The iterator `client.events()` returns. `return()` (a `break` out of for await) ends it. */
export class EventStream implements AsyncIterableIterator<BridgeEvent> {
  readonly #source: EventSource;
  readonly #options: EventStreamOptions;
  readonly #onGap: 'history' | 'restart';
  readonly #closer = new AbortController();
  readonly #parser = new SseParser();
  #decoder = new TextDecoder();
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #connection: AbortController | null = null;
  #items: SseItem[] = [];
  #lastSeq: number | undefined;
  /** Events at or below it are the backlog skipped after a gap (onGap: restart). */
  #skipThrough = 0;
  #run: string | undefined;
  #failures = 0;
  #reconnects = 0;
  #closed = false;
  #queue: Promise<unknown> = Promise.resolve();
  /** Retry-After of the last refusal. */
  #retryAfter: string | null = null;

  constructor(source: EventSource, options: EventStreamOptions = {}) {
    this.#source = source;
    this.#options = options;
    this.#onGap = options.onGap ?? 'history';
    this.#lastSeq = options.since;
    const signal = options.signal;
    if (signal?.aborted) this.#closed = true;
    else signal?.addEventListener('abort', () => void this.#close(), { once: true });
  }

  /** The seq of the last event received: where a reconnection resumes. */
  get lastSeq(): number | undefined {
    return this.#lastSeq;
  }

  /** The bridge run of the current connection (X-Event-Run). */
  get run(): string | undefined {
    return this.#run;
  }

  /** Reconnections so far. */
  get reconnects(): number {
    return this.#reconnects;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<BridgeEvent>> {
    // Calls made without awaiting the previous one are answered in order.
    const result = this.#queue.then(() => this.#next());
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async return(): Promise<IteratorResult<BridgeEvent>> {
    await this.#close();
    return { value: undefined, done: true };
  }

  async throw(error?: unknown): Promise<IteratorResult<BridgeEvent>> {
    await this.#close();
    throw error;
  }

  /** Ends the stream; a next() waiting for an event resolves done. */
  close(): Promise<void> {
    return this.#close();
  }

  async #next(): Promise<IteratorResult<BridgeEvent>> {
    for (;;) {
      if (this.#closed) return { value: undefined, done: true };
      const item = this.#items.shift();
      if (item !== undefined) {
        const event = this.#take(item);
        if (event !== undefined) return { value: event, done: false };
        continue;
      }
      try {
        if (this.#reader === null) await this.#connect();
        else await this.#read();
      } catch (err) {
        if (this.#closed) return { value: undefined, done: true };
        await this.#close();
        throw err;
      }
    }
  }

  /** One parsed item: an event to hand out, or something the stream handles itself. */
  #take(item: SseItem): BridgeEvent | undefined {
    if (item.type !== 'message') return undefined;
    if (item.id === undefined) {
      if (item.event === 'gap') this.#gap(item.data);
      else if (item.event === 'progress') this.#progress(item.data);
      return undefined;
    }
    let event: BridgeEvent;
    try {
      event = JSON.parse(item.data) as BridgeEvent;
    } catch {
      return undefined;
    }
    const seq = Number(item.id);
    if (!Number.isSafeInteger(seq)) return undefined;
    // Never twice: a resumed stream starts after lastSeq, but a stream is also judged here.
    if (this.#lastSeq !== undefined && seq <= this.#lastSeq) return undefined;
    this.#lastSeq = seq;
    if (seq <= this.#skipThrough) return undefined;
    return event;
  }

  #progress(data: string): void {
    const onProgress = this.#options.onProgress;
    if (onProgress === undefined) return;
    let event: ProgressEvent;
    try {
      event = JSON.parse(data) as ProgressEvent;
    } catch {
      return;
    }
    if (typeof event?.progress_token === 'string' && typeof event.done === 'number' && typeof event.total === 'number') onProgress(event);
  }

  #gap(data: string): void {
    let range: { from?: unknown; to?: unknown };
    try {
      range = JSON.parse(data) as typeof range;
    } catch {
      return;
    }
    const from = Number(range.from);
    const to = Number(range.to);
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return;
    this.#options.onNotice?.({ type: 'gap', from, to, action: this.#onGap });
  }

  async #connect(): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      let reason: StreamReconnectEvent['reason'];
      let error: Error;
      let retryAfter: string | null = null;
      try {
        const opened = await this.#open();
        if (opened === 'run_changed') {
          reason = 'run_changed';
          error = new Error('the bridge restarted (a new run): its seqs start again at 1');
        } else {
          return;
        }
      } catch (err) {
        if (this.#closed) return;
        if (err instanceof BridgeCallError) {
          // 503 BUSY (max_event_streams) is worth waiting for; anything else will not change.
          if (err.code !== 'BUSY') throw err;
          reason = 'busy';
          retryAfter = this.#retryAfter;
        } else {
          reason = 'unreachable';
        }
        error = err as Error;
      }
      await this.#backoff(reason, error, retryAfter);
    }
  }

  /** One GET /events. Throws what it got instead of a stream. */
  async #open(): Promise<'open' | 'run_changed'> {
    const query = new URLSearchParams();
    if (this.#options.kinds !== undefined && this.#options.kinds.length > 0) query.set('kinds', this.#options.kinds.join(','));
    const headers: Record<string, string> = { authorization: `Bearer ${this.#source.token}`, accept: 'text/event-stream' };
    if (this.#lastSeq !== undefined) headers['last-event-id'] = String(this.#lastSeq);
    const connection = new AbortController();
    this.#connection = connection;
    const signal = AbortSignal.any([connection.signal, this.#closer.signal]);
    const path = `/events${query.size > 0 ? `?${query}` : ''}`;
    let response: Response;
    try {
      response = await this.#source.fetch(`${this.#source.url}${path}`, { headers, signal });
    } catch (err) {
      throw new BridgeConnectionError(`cannot reach the bridge at ${this.#source.url}: ${(err as Error).message}`, this.#source.url, { cause: err });
    }
    if (response.status !== 200 || response.body === null) {
      const text = await response.text().catch(() => '');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      this.#retryAfter = response.headers.get('retry-after');
      const error = callErrorOf(body, response.status, response.headers.get('x-request-id'), '');
      if (error !== undefined) throw error;
      throw new BridgeConnectionError(
        `${this.#source.url}/events answered HTTP ${response.status} with something that is not a bridge envelope (a bridge older than v0.4 has no /events)`,
        this.#source.url,
      );
    }
    const run = response.headers.get('x-event-run') ?? undefined;
    const seqHeader = response.headers.get('x-event-seq');
    const newest = seqHeader === null || !/^\d+$/.test(seqHeader) ? undefined : Number(seqHeader);
    if (this.#run !== undefined && run !== undefined && run !== this.#run) {
      // The bridge restarted: its seqs start again at 1, so our resume point means nothing there.
      // Start again from everything it kept (or live, for onGap: restart).
      this.#run = run;
      connection.abort();
      this.#lastSeq = this.#onGap === 'restart' ? newest : 0;
      this.#skipThrough = 0;
      return 'run_changed';
    }
    this.#run = run;
    this.#reader = response.body.getReader();
    this.#decoder = new TextDecoder();
    this.#parser.end();
    // Without a resume point, the newest seq at opening is one: a reconnection then loses nothing.
    if (this.#lastSeq === undefined && newest !== undefined) this.#lastSeq = newest;
    // A gap line comes first in the stream; whether one does decides if the backlog is skipped.
    this.#armed = this.#onGap === 'restart' ? newest : undefined;
    this.#options.onNotice?.({ type: 'connected', run, seq: newest });
    return 'open';
  }

  /** onGap: restart: the newest seq at opening, until the first message shows whether a gap came first. */
  #armed: number | undefined;

  /** One chunk from the connection, or a reconnection when it is gone or silent too long. */
  async #read(): Promise<void> {
    const reader = this.#reader!;
    const idleMs = this.#options.idleTimeoutMs ?? EVENT_STREAM_DEFAULTS.idleTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<'idle'>((resolve) => (timer = setTimeout(() => resolve('idle'), idleMs)));
    let outcome: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>> | 'idle' | Error;
    try {
      outcome = await Promise.race([reader.read(), idle]);
    } catch (err) {
      outcome = err as Error;
    } finally {
      clearTimeout(timer);
    }
    if (this.#closed) return;
    if (outcome !== 'idle' && !(outcome instanceof Error) && !outcome.done) {
      // Bytes arrived: the connection works, so the next loss starts the backoff afresh.
      this.#failures = 0;
      const items = this.#parser.feed(this.#decoder.decode(outcome.value, { stream: true }));
      this.#arm(items);
      this.#items.push(...items);
      return;
    }
    this.#drop();
    const reason = outcome === 'idle' ? 'idle' : outcome instanceof Error ? 'dropped' : 'ended';
    const error = outcome instanceof Error ? outcome : undefined;
    await this.#backoff(reason, error, null);
  }

  /** onGap: restart: the first message of a connection decides whether its backlog is skipped. */
  #arm(items: SseItem[]): void {
    if (this.#armed === undefined) return;
    const first = items.find((item) => item.type === 'message');
    if (first === undefined) return;
    if (first.type === 'message' && first.id === undefined && first.event === 'gap') this.#skipThrough = Math.max(this.#skipThrough, this.#armed);
    this.#armed = undefined;
  }

  /** Forgets the current connection (its reader and what was half parsed). */
  #drop(): void {
    this.#connection?.abort();
    this.#connection = null;
    const reader = this.#reader;
    this.#reader = null;
    reader?.cancel().catch(() => undefined);
    this.#parser.end();
  }

  async #backoff(reason: StreamReconnectEvent['reason'], error: Error | undefined, retryAfter: string | null): Promise<void> {
    this.#failures++;
    const max = this.#options.maxRetries ?? Infinity;
    if (this.#failures > max) {
      throw error ?? new BridgeConnectionError(`the event stream was lost ${this.#failures} times in a row (${reason})`, this.#source.url);
    }
    const base = this.#options.baseDelayMs ?? EVENT_STREAM_DEFAULTS.baseDelayMs;
    const cap = this.#options.maxDelayMs ?? EVENT_STREAM_DEFAULTS.maxDelayMs;
    const backoff = Math.min(cap, base * 2 ** Math.min(this.#failures - 1, 30));
    const delayMs = Math.max(backoff, Math.min(cap, parseRetryAfter(retryAfter) ?? 0));
    this.#reconnects++;
    const notice: StreamReconnectEvent = { type: 'reconnect', attempt: this.#failures, delayMs, reason, lastSeq: this.#lastSeq };
    if (error !== undefined) notice.error = error;
    this.#options.onNotice?.(notice);
    // Closing the stream cuts the wait short; the caller then sees it closed.
    await sleep(delayMs, { signal: this.#closer.signal }).catch(() => {});
  }

  async #close(): Promise<void> {
    if (this.#closed && this.#reader === null) return;
    this.#closed = true;
    this.#items = [];
    this.#closer.abort();
    this.#drop();
  }
}
