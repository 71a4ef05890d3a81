// One GET /events stream per bridge token, shared by the sessions of that token (decisions §14).
// It carries the `progress` events of the calls they run and, while any of them follows the world
// (a resource subscription), the events that credential may see. It opens when first needed, asks
// for the kinds needed so far (a stream that must start asking for more is replaced by one resumed
// where it stood), and closes once nothing has needed it for LIMITS.mcpFeedIdleMs.
import { randomBytes } from 'node:crypto';
import type { BridgeClient } from '../client/client.ts';
import { BridgeCallError } from '../client/errors.ts';
import type { BridgeEvent, EventStream, ProgressEvent, StreamNotice } from '../client/events.ts';
import { LIMITS } from '../limits.ts';

export const PROGRESS_KIND = 'progress';

export interface FeedOptions {
  /** The event kinds the bridge knows (/capabilities event_kinds): asked for by name beside `progress`. */
  kinds(): readonly string[];
  /** Reconnections, gaps and opened connections, for the server's warnings. */
  onNotice?(notice: StreamNotice): void;
  /** The stream could not be opened at all (a refused token, an old bridge): said once per cause. */
  onFailure?(error: Error): void;
  /** How long a connection may take before a progress call goes on without it. Default 2 s. */
  connectWaitMs?: number;
  idleMs?: number;
}

/** A progress listener's registration: the token to send as Progress-Token (undefined: no progress from this bridge). */
export interface ProgressTicket {
  token: string | undefined;
  done(): void;
}

interface Connection {
  stream: EventStream;
  progress: boolean;
  events: boolean;
  /** Resolves true once connected, false if it never will be (refused); pending while it keeps trying. */
  opened: Promise<boolean>;
}

export class Feed {
  readonly #client: BridgeClient;
  readonly #options: FeedOptions;
  readonly #progress = new Map<string, (event: ProgressEvent) => void>();
  readonly #watchers = new Set<(event: BridgeEvent) => void>();
  #connection: Connection | null = null;
  /** False once the bridge refused the kind `progress` (a bridge older than v0.6). */
  #progressKnown = true;
  #idle: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(client: BridgeClient, options: FeedOptions) {
    this.#client = client;
    this.#options = options;
  }

  /** Whether the stream is open now (for tests and the idle rule). */
  get open(): boolean {
    return this.#connection !== null;
  }

  /**
   * A fresh Progress-Token whose `progress` events go to `listener` until done(). Resolves once the
   * stream that carries them is connected, so none is missed; the token is undefined when the
   * bridge reports no progress.
   */
  async progress(listener: (event: ProgressEvent) => void): Promise<ProgressTicket> {
    if (!this.#progressKnown || this.#closed) return { token: undefined, done: () => {} };
    // 22 characters of [A-Za-z0-9_-]: within the bridge's Progress-Token alphabet, and never guessed.
    const token = randomBytes(16).toString('base64url');
    this.#progress.set(token, listener);
    const done = () => {
      this.#progress.delete(token);
      this.#settle();
    };
    const connected = await this.#ensure();
    if (!connected || !this.#progressKnown) {
      done();
      return { token: undefined, done: () => {} };
    }
    return { token, done };
  }

  /** Every event the credential may see, to `listener`, until the returned function is called. */
  watch(listener: (event: BridgeEvent) => void): () => void {
    this.#watchers.add(listener);
    void this.#ensure();
    return () => {
      if (this.#watchers.delete(listener)) this.#settle();
    };
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#idle);
    this.#progress.clear();
    this.#watchers.clear();
    void this.#connection?.stream.close();
    this.#connection = null;
  }

  /**
   * A connection that carries what is needed now (the current one, or a new one that asks for
   * more): true once it is connected, false when it is refused or not connected within
   * connectWaitMs (a stream that keeps trying, at a bridge whose streams are all taken, say).
   */
  async #ensure(): Promise<boolean> {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    const progress = this.#progressKnown && this.#progress.size > 0;
    const events = this.#watchers.size > 0;
    let connection = this.#connection;
    // Kinds only grow while a stream is open: it asks for what it asked for before, and more.
    if (connection === null || (progress && !connection.progress) || (events && !connection.events)) {
      if (this.#closed) return false;
      connection = this.#connect(progress || (connection?.progress ?? false), events || (connection?.events ?? false), connection);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.#options.connectWaitMs ?? 2_000)));
    try {
      return await Promise.race([connection.opened, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #connect(progress: boolean, events: boolean, previous: Connection | null): Connection {
    // Without `kinds` a stream has every kind but `progress`, which it must name; with progress
    // only, it asks for nothing else.
    let kinds: string[] | undefined;
    if (progress) kinds = events ? [...this.#options.kinds().filter((kind) => kind !== PROGRESS_KIND), PROGRESS_KIND] : [PROGRESS_KIND];
    // A replacement resumes where the stream it replaces stood, so no event falls between them.
    const since = previous?.events ? previous.stream.lastSeq : undefined;
    let connected!: (value: boolean) => void;
    const opened = new Promise<boolean>((resolve) => (connected = resolve));
    const stream = this.#client.events({
      ...(kinds === undefined ? {} : { kinds }),
      ...(since === undefined ? {} : { since }),
      onNotice: (notice) => {
        if (notice.type === 'connected') connected(true);
        this.#options.onNotice?.(notice);
      },
      onProgress: (event) => this.#progress.get(event.progress_token)?.(event),
    });
    const connection: Connection = { stream, progress, events, opened };
    this.#connection = connection;
    if (previous !== null) void previous.stream.close();
    void this.#pump(connection, connected);
    return connection;
  }

  async #pump(connection: Connection, connected: (value: boolean) => void): Promise<void> {
    try {
      for await (const event of connection.stream) for (const watcher of [...this.#watchers]) watcher(event);
    } catch (err) {
      connected(false);
      if (this.#connection !== connection) return;
      this.#connection = null;
      if (connection.progress && err instanceof BridgeCallError && err.code === 'BAD_ARGS') {
        // A bridge that does not know the kind `progress`: follow the events without it.
        this.#progressKnown = false;
        this.#progress.clear();
        if (this.#watchers.size > 0) void this.#ensure();
        return;
      }
      this.#options.onFailure?.(err as Error);
    }
  }

  /** Nothing left to follow: the stream closes after the idle time, unless something needs it again. */
  #settle(): void {
    if (this.#progress.size > 0 || this.#watchers.size > 0 || this.#connection === null || this.#idle !== undefined) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (this.#progress.size > 0 || this.#watchers.size > 0) return;
      void this.#connection?.stream.close();
      this.#connection = null;
    }, this.#options.idleMs ?? LIMITS.mcpFeedIdleMs);
    this.#idle.unref();
  }
}
