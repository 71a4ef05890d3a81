// A bridge token as gcb mcp knows it, shared by every session opened with it: what it may call
// (the bridge's capabilities and the token's whoami), read again every LIMITS.mcpWatchIntervalMs
// while a session uses it, so each session learns of a change within 2 s (decisions §14); the one
// event stream its sessions share (feed.ts); and what its sessions may hold (subscriptions, stored
// stream events), bounded in bytes for all of them together (decisions §13).
import { CappedLeases, isRefusal, type Lease, type Taker } from '../admission/capped-leases.ts';
import { PERMISSIONS, type PermissionName } from '../auth/permissions.ts';
import type { BridgeClient, Capabilities, RequestOptions } from '../client/client.ts';
import { BridgeCallError, BridgeConnectionError } from '../client/errors.ts';
import type { BridgeEvent, StreamNotice } from '../client/events.ts';
import { busyFailure, type Failure } from '../errors/failures.ts';
import { LIMITS } from '../limits.ts';
import { Feed } from './feed.ts';
import { StreamStore } from './stream-store.ts';

/** whoami's answer. */
export interface Who {
  agent_id: string;
  role: string;
  claimed_kingdom_id: number | null;
  permissions: string[];
  scenario: string;
  partial_intel: boolean;
}

export interface CredentialView {
  capabilities: Capabilities;
  /** null while the bridge cannot say (its kill switch is off): every tool is listed and the bridge judges each call. */
  who: Who | null;
}

export type LogLevel = 'info' | 'notice' | 'warning' | 'error';

/** A look at the bridge that takes longer is given up (the next one follows). */
const CHECK_TIMEOUT_MS = 5_000;

/** What a session hears from its credential. */
export interface CredentialListener {
  /** The capabilities or the permissions changed. */
  changed(view: CredentialView): void;
  /** The server's own news for the client (notifications/message). */
  log(level: LogLevel, message: string): void;
  /** The bridge restarted: its event seqs start again at 1. */
  restarted(): void;
}

/** Told of the world moving as the credential sees it: an event it may see, or (undefined) the tick moving. */
export type WorldListener = (event: BridgeEvent | undefined) => void;

/** The places every credential's subscriptions share: a half per agent, a quarter kept for read_all (decisions §13). */
export function subscriptionPool(limit: number = LIMITS.mcpSubscriptionsMax): CappedLeases {
  return new CappedLeases(limit, { noun: 'resource subscriptions', cap: 'gcb mcp', freeOne: 'unsubscribe from one (resources/unsubscribe)' });
}

export class Credential {
  readonly client: BridgeClient;
  readonly feed: Feed;
  /** Stored SSE events of all its sessions (HTTP), bounded in bytes together. */
  readonly streams = new StreamStore(LIMITS.mcpStreamStoreCredentialBytes, LIMITS.mcpStreamStoreSessionBytes);
  view: CredentialView;
  readonly #multiAgent: boolean;
  readonly #pool: CappedLeases;
  readonly #listeners = new Set<CredentialListener>();
  readonly #world = new Set<WorldListener>();
  #etag: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #gone = false;
  #tick: number | undefined;
  #run: string | undefined;
  #unwatch: (() => void) | null = null;
  #subscriptions = 0;
  #subscriptionBytes = 0;
  #closed = false;

  private constructor(client: BridgeClient, view: CredentialView, etag: string | undefined, multiAgent: boolean, pool: CappedLeases) {
    this.client = client;
    this.view = view;
    this.#etag = etag;
    this.#multiAgent = multiAgent;
    this.#pool = pool;
    this.feed = new Feed(client, {
      kinds: () => this.view.capabilities.event_kinds ?? [],
      onNotice: (notice) => this.#notice(notice),
      onFailure: (error) => this.#broadcast('warning', `the bridge's event stream could not be followed: ${error.message}`),
    });
  }

  /** Reads what the token may call now. Throws the bridge's refusal (UNAUTHORIZED) or BridgeConnectionError. */
  static async open(client: BridgeClient, pool: CappedLeases = subscriptionPool()): Promise<Credential> {
    const change = await client.capabilitiesIfChanged(undefined);
    if (!change.changed) throw new Error('GET /capabilities answered 304 to a request without If-None-Match');
    const [health, who] = await Promise.all([client.health(), whoami(client)]);
    return new Credential(client, { capabilities: change.capabilities, who }, change.etag, health.multi_agent, pool);
  }

  /** Who takes the session's places (decisions §10): the agent, or the token itself while the bridge cannot say. */
  taker(tokenDigest: string): Taker {
    const who = this.view.who;
    // While the kill switch is off POST /cmd answers DISABLED: the token then stands for its agent,
    // and only legacy mode's one credential, which holds every permission, counts as read_all, so
    // the kept quarter is never handed out on a guess.
    if (who === null) return { agentId: `token ${tokenDigest}`, readAll: !this.#multiAgent, multiAgent: this.#multiAgent };
    return { agentId: who.agent_id, readAll: who.permissions.includes('read_all'), multiAgent: this.#multiAgent };
  }

  /** The permissions as a mask, or null for "every command" (unknown: the bridge judges). */
  get mask(): number | null {
    const who = this.view.who;
    if (who === null) return null;
    let mask = 0;
    for (const name of who.permissions) mask |= PERMISSIONS[name as PermissionName] ?? 0;
    return mask;
  }

  /** A session starts following the credential; the returned function ends it. */
  attach(listener: CredentialListener): () => void {
    this.#listeners.add(listener);
    this.#schedule();
    return () => {
      this.#listeners.delete(listener);
    };
  }

  get sessions(): number {
    return this.#listeners.size;
  }

  /** Reads the capabilities and whoami again now, and tells the sessions when either changed. */
  async refresh(): Promise<void> {
    if (this.#checking || this.#closed) return;
    this.#checking = true;
    try {
      await this.#check();
    } finally {
      this.#checking = false;
    }
  }

  /**
   * The world as this credential sees it: each event it may see, and the tick moving (read from
   * /health, which no audit record follows, only while someone listens).
   */
  followWorld(listener: WorldListener): () => void {
    this.#world.add(listener);
    this.#unwatch ??= this.feed.watch((event) => {
      for (const each of [...this.#world]) each(event);
    });
    this.#schedule();
    return () => {
      this.#world.delete(listener);
      if (this.#world.size === 0) {
        this.#unwatch?.();
        this.#unwatch = null;
        this.#tick = undefined;
      }
    };
  }

  /** A subscription's place: within the credential's share (count and bytes) and the server's pool. */
  takeSubscription(uri: string, tokenDigest: string): Lease | Failure {
    const bytes = Buffer.byteLength(uri) + LIMITS.mcpSubscriptionBytes;
    const maxBytes = LIMITS.mcpSubscriptionsPerCredential * (LIMITS.mcpUriMaxBytes + LIMITS.mcpSubscriptionBytes);
    if (this.#subscriptions >= LIMITS.mcpSubscriptionsPerCredential || this.#subscriptionBytes + bytes > maxBytes) {
      return busyFailure(
        `this credential already holds ${this.#subscriptions} resource subscriptions, its limit (${LIMITS.mcpSubscriptionsPerCredential}); ` +
          'unsubscribe from one (resources/unsubscribe) first',
      );
    }
    const lease = this.#pool.take(this.taker(tokenDigest));
    if (isRefusal(lease)) return lease;
    this.#subscriptions++;
    this.#subscriptionBytes += bytes;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        lease.release();
        this.#subscriptions--;
        this.#subscriptionBytes -= bytes;
      },
    };
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#listeners.clear();
    this.#world.clear();
    this.feed.close();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#listeners.size === 0 && this.#world.size === 0) return;
      void this.refresh().finally(() => this.#schedule());
    }, LIMITS.mcpWatchIntervalMs);
    this.#timer.unref();
  }

  /**
   * One look at the bridge. Each answer is taken as it comes: /capabilities is never queued behind
   * other requests, while whoami and /health wait for their slot (and whoami for a pool thread of a
   * bridge that has just started).
   */
  async #check(): Promise<void> {
    // No BUSY retries: the next check comes within the second anyway; nor a wait without end.
    const quick: RequestOptions = { retry: false, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) };
    const caps = this.client.capabilitiesIfChanged(this.#etag, quick).then(
      (change) => {
        if (this.#gone) this.#broadcast('notice', 'the bridge answers again');
        this.#gone = false;
        if (change.changed) {
          this.#etag = change.etag;
          this.#apply({ ...this.view, capabilities: change.capabilities });
        }
      },
      (err: unknown) => {
        if (!(err instanceof BridgeConnectionError)) return;
        if (!this.#gone) this.#broadcast('error', `the bridge is gone (${err.message}); tool calls fail until it is back`);
        this.#gone = true;
      },
    );
    const who = whoami(this.client, quick).then(
      (answer) => {
        if (answer !== null && !sameWho(answer, this.view.who)) this.#apply({ ...this.view, who: answer });
      },
      () => undefined,
    );
    const tick =
      this.#world.size === 0
        ? undefined
        : this.client.health(quick).then(
            (health) => {
              if (this.#tick !== undefined && health.tick !== this.#tick) for (const each of [...this.#world]) each(undefined);
              this.#tick = health.tick;
            },
            () => undefined,
          );
    await Promise.all([caps, who, tick]);
  }

  #apply(view: CredentialView): void {
    this.view = view;
    for (const listener of [...this.#listeners]) listener.changed(view);
  }

  #notice(notice: StreamNotice): void {
    if (notice.type === 'gap') {
      this.#broadcast('warning', `the bridge no longer holds events ${notice.from}..${notice.to} this credential could see: read the world again`);
    } else if (notice.type === 'reconnect' && notice.reason === 'unreachable' && notice.attempt === 1) {
      this.#broadcast('warning', `the bridge's event stream was lost (${notice.error?.message ?? 'unreachable'}); reconnecting`);
    } else if (notice.type === 'connected') {
      if (this.#run !== undefined && notice.run !== undefined && notice.run !== this.#run) {
        for (const listener of [...this.#listeners]) listener.restarted();
        void this.refresh();
      }
      this.#run = notice.run ?? this.#run;
    }
  }

  #broadcast(level: LogLevel, message: string): void {
    for (const listener of [...this.#listeners]) listener.log(level, message);
  }
}

/** The token's whoami, or null while the bridge cannot run it (DISABLED). */
async function whoami(client: BridgeClient, options: RequestOptions = {}): Promise<Who | null> {
  try {
    return await client.call('whoami', {}, options);
  } catch (err) {
    if (err instanceof BridgeCallError && err.code === 'DISABLED') return null;
    throw err;
  }
}

function sameWho(a: Who, b: Who | null): boolean {
  return (
    b !== null &&
    a.agent_id === b.agent_id &&
    a.role === b.role &&
    a.claimed_kingdom_id === b.claimed_kingdom_id &&
    a.partial_intel === b.partial_intel &&
    a.scenario === b.scenario &&
    a.permissions.join() === b.permissions.join()
  );
}
