// The main-loop half of the event layer (decisions §7): one seq counter, the history ring, the
// fan-out to event streams, and recv_events' answers and waits. Everything here runs on the main
// loop, so a batch is numbered, kept and offered to every subscriber in one turn, in seq order.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { nearest, type Failure, type Outcome } from '../errors/bridge-error.ts';
import { badArgsFailure } from '../errors/failures.ts';
import { PERMISSIONS } from '../auth/permissions.ts';
import { LIMITS } from '../limits.ts';
import type { CallerContext } from '../shared/caller.ts';
import { isoTime } from '../shared/iso-time.ts';
import type { ProgressReport } from '../shared/progress.ts';
import { canSee, READ_ALL_ONLY, type Restriction } from './audience.ts';
import { PROGRESS_KIND } from './kinds.ts';
import type { EventBatch } from '../shared/protocol.ts';
import { StoredEvent, type EventFields } from './event.ts';
import { EventRing } from './ring.ts';
import { isFailure, StreamLeases, type StreamLease } from './stream-leases.ts';
import { Subscriber, type EndReason, type StreamSink } from './subscriber.ts';

export interface RecvArgs {
  since_seq?: number;
  kinds?: string[];
  max?: number;
  wait_ms?: number;
}

export interface RecvResult {
  /** The events as JSON text (the pool step parses them: the JSON is built once per event). */
  items: string[];
  count: number;
  next_cursor: number;
  oldest_seq: number;
  gap?: { from: number; to: number };
}

export interface EventStats {
  /** The last seq handed out. */
  seq: number;
  streams: number;
  waiting: number;
  published: number;
  /** Events the game thread dropped (per-frame bound or uncopyable fields). */
  dropped: number;
  /** Streams closed because their client fell a whole buffer behind. */
  overflowed: number;
}

/**
 * The kingdom list of a global event, one for all of them: the history keeps every event it
 * holds, and an empty list of its own for each was an allocation to keep too.
 */
export const NO_KINGDOMS: readonly number[] = Object.freeze([]);

/** Something that gives an admission slot back (cmd's permit). */
interface Releasable {
  release(): void;
}

interface Waiter {
  caller: CallerContext;
  kinds: ReadonlySet<string> | null;
  args: Required<Pick<RecvArgs, 'since_seq' | 'max'>>;
  lease: StreamLease;
  timer: NodeJS.Timeout;
  resolve(outcome: Outcome<RecvResult>): void;
}

/** What an agent without read_all may see, besides its own id: the fog flag and its claim. */
interface VisibleMark {
  view: string;
  /** The last seq this agent may see, as far as it was worked out. */
  seq: number;
  /** The seq up to which `seq` was worked out. */
  checked: number;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

/** A progress event's SSE frame: `event:` and `data:`, no `id:` (it has no seq). */
function progressFrame(token: string, command: string, report: ProgressReport): Uint8Array {
  const event: Record<string, unknown> = {
    kind: PROGRESS_KIND,
    tick: report.tick,
    at_utc: isoTime(Math.round(report.at)),
    kingdom_ids: NO_KINGDOMS,
    progress_token: token,
    name: command,
    done: report.done,
    total: report.total,
  };
  if (report.phase !== undefined) event.phase = report.phase;
  return Buffer.from(`event: ${PROGRESS_KIND}\ndata: ${JSON.stringify(event)}\n\n`);
}
/** The first window of the backward look for the last visible event; each next one is 4 times wider. */
const FIRST_LOOK_BACK = 64;

export class EventHub {
  readonly streamLeases: StreamLeases;
  /**
   * This bridge run (GET /events X-Event-Run): seqs start again at 1 when the bridge restarts, so a
   * client that sees another run knows its resume point belongs to the old one.
   */
  readonly run = randomBytes(8).toString('hex');
  /** decisions §9 gcb_events_total{kind}: events published so far, by kind. */
  readonly kindCounts = new Map<string, number>();
  readonly #ring: EventRing<StoredEvent>;
  readonly #log: Logger;
  readonly #tick: () => number;
  readonly #keepAliveMs: number;
  readonly #subscribers = new Set<Subscriber>();
  readonly #leases = new Map<Subscriber, StreamLease>();
  readonly #waiters = new Set<Waiter>();
  /** decisions §13 cursors: per agent without read_all, the last seq it may see. */
  readonly #visible = new Map<string, VisibleMark>();
  #kinds: ReadonlySet<string>;
  #kindList: string[];
  /** The game's eventFog: per kind, the fields the fog form cuts. */
  #fogHides = new Map<string, ReadonlySet<string>>();
  #seq = 0;
  #published = 0;
  #dropped = 0;
  #overflowed = 0;
  #keepAlive: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: {
    history: number;
    /** decisions §13: the history's bound in bytes (default LIMITS.eventHistoryBytes). */
    historyBytes?: number;
    maxStreams: number;
    multiAgent: boolean;
    /** The world tick now (shared memory), for the main loop's own events. */
    tick(): number;
    keepAliveMs: number;
    log: Logger;
    /** Every kind known (the bridge's and the game's); set again once the game's are known. */
    kinds?: readonly string[];
  }) {
    this.#ring = new EventRing(options.history, options.historyBytes ?? LIMITS.eventHistoryBytes);
    this.streamLeases = new StreamLeases(options.maxStreams, options.multiAgent);
    this.#tick = options.tick;
    this.#keepAliveMs = options.keepAliveMs;
    this.#log = options.log;
    this.#kindList = [...(options.kinds ?? [])];
    this.#kinds = new Set(this.#kindList);
  }

  /** The kinds filters may name (/capabilities event_kinds). */
  setKinds(kinds: readonly string[]): void {
    this.#kindList = [...kinds];
    this.#kinds = new Set(kinds);
  }

  /** The last seq handed out. */
  get seq(): number {
    return this.#seq;
  }

  /** The game's eventFog, checked (kinds.ts checkEventFog). */
  setFog(fog: ReadonlyMap<string, ReadonlySet<string>>): void {
    this.#fogHides = new Map(fog);
  }

  get stats(): EventStats {
    return {
      seq: this.#seq,
      streams: this.#subscribers.size,
      waiting: this.#waiters.size,
      published: this.#published,
      dropped: this.#dropped,
      overflowed: this.#overflowed,
    };
  }

  start(): void {
    // decisions §7: a comment line keeps idle streams alive; one timer for every stream.
    this.#keepAlive = setInterval(() => {
      for (const subscriber of this.#subscribers) subscriber.offerRaw(KEEP_ALIVE);
    }, this.#keepAliveMs);
    this.#keepAlive.unref();
  }

  /**
   * Closing the bridge: every stream ends cleanly (what is buffered is written, then the end of the
   * response); waiting recv_events answer with what they have. A client that does not read cannot
   * be ended cleanly: after `graceMs` its connection is dropped.
   */
  async stop(graceMs = 200): Promise<void> {
    this.#stopped = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    for (const waiter of this.#waiters) this.#answer(waiter);
    const subscribers = [...this.#subscribers];
    // Stryker disable next-line StringLiteral: an end reason is read only as 'overflow' or 'client'
    for (const subscriber of subscribers) subscriber.end('closed');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    const ended = await Promise.race([Promise.all(subscribers.map((s) => s.done)), graceOver]);
    clearTimeout(timer);
    if (ended === 'late') for (const subscriber of subscribers) subscriber.destroy();
  }

  /** A batch from the game thread: numbered, kept and fanned out in this turn. */
  publishBatch(batch: EventBatch): void {
    this.#dropped += batch.dropped;
    const atUtc = new Date(batch.at).toISOString();
    // Stryker disable next-line ArrayDeclaration: the length only sizes the array ahead; every slot is set below
    const events: StoredEvent[] = new Array<StoredEvent>(batch.events.length);
    for (let i = 0; i < batch.events.length; i++) {
      const raw = batch.events[i]!;
      events[i] = this.#store(raw.kind, raw.tick, atUtc, raw.kingdomIds, raw.fields, null);
    }
    this.#fanOut(events);
  }

  /**
   * A main-loop event (enabled_changed, turn_changed, message, objective_changed, command,
   * agents_reloaded, agents_reload_failed). `restrict` narrows its audience (audience.ts).
   */
  emit(kind: string, fields?: EventFields, kingdomIds: readonly number[] = NO_KINGDOMS, restrict: Restriction | null = null): void {
    const event = this.#store(kind, this.#tick(), isoTime(), kingdomIds, fields, restrict);
    this.#fanOut([event]);
  }

  /**
   * decisions §14: how far `caller`'s running command got. Live only: never numbered or kept, so it
   * takes no seq and never makes a gap; offered to that agent's own streams alone, and only to those
   * whose kinds= names `progress` (a stream without a filter, as every client before v0.6 opened
   * one, never gets it). recv_events never returns it.
   */
  progress(caller: CallerContext, token: string, command: string, report: ProgressReport): void {
    let frame: Uint8Array | null = null;
    for (const subscriber of this.#subscribers) {
      const kinds = subscriber.kinds;
      if (kinds === null || !kinds.has(PROGRESS_KIND) || subscriber.caller.agentId !== caller.agentId) continue;
      frame ??= progressFrame(token, command, report);
      subscriber.offerRaw(frame);
    }
  }

  /** decisions §10: what agents.json reload emits, seen by read_all holders only. */
  emitReadAllOnly(kind: 'agents_reloaded' | 'agents_reload_failed', fields: Record<string, unknown>): void {
    this.emit(kind, fields, NO_KINGDOMS, READ_ALL_ONLY);
  }

  /**
   * decisions §13: the newest seq `caller` may see, what its cursors (next_cursor, X-Event-Seq)
   * stand at. read_all holders get the global counter. Anyone else gets the seq of the last event
   * it may see, so its cursor stands still while only hidden events happen and its steps never
   * count them. Worked out once per agent and new events: only the events since its last look are
   * looked at, newest first, up to the first it may see.
   */
  visibleSeq(caller: CallerContext): number {
    if ((caller.permissions & PERMISSIONS.read_all) !== 0) return this.#seq;
    const view = `${caller.partialIntel ? 1 : 0}:${caller.claimedKingdomId ?? ''}`;
    let mark = this.#visible.get(caller.agentId);
    if (mark === undefined || mark.view !== view) {
      // A new claim or fog flag changes what the agent may see: worked out again from what is kept.
      mark = { view, seq: 0, checked: 0 };
      this.#visible.set(caller.agentId, mark);
    }
    mark.seq = this.#lastVisibleAfter(caller, mark.checked) ?? mark.seq;
    mark.checked = this.#seq;
    return mark.seq;
  }

  /**
   * The newest kept seq after `after` that `caller` may see, or null. Looks back from the newest in
   * windows growing fourfold, so the cost follows how far back that event is, not the history's size.
   */
  #lastVisibleAfter(caller: CallerContext, after: number): number | null {
    const oldest = this.#oldestSeq();
    let upper = this.#seq;
    for (let span = FIRST_LOOK_BACK; upper > after && upper >= oldest; span *= 4) {
      const lower = Math.max(after, upper - span);
      const top = upper;
      let found: number | null = null;
      this.#ring.forEachAfter(lower, (event) => {
        if (event.seq > top) return false;
        if (canSee(caller, event)) found = event.seq;
        return true;
      });
      if (found !== null) return found;
      upper = lower;
    }
    return null;
  }

  /** decisions §10: a removed agent's streams close (and its waiting recv_events answer). */
  closeAgent(agentId: string): void {
    this.#visible.delete(agentId);
    for (const subscriber of this.#subscribers) if (subscriber.caller.agentId === agentId) subscriber.end('removed');
    for (const waiter of this.#waiters) if (waiter.caller.agentId === agentId) this.#answer(waiter);
  }

  /**
   * decisions §10: after agents.json is read again, every stream and waiter follows its agent's
   * new context (role, permissions, claim); one whose agent is gone is closed.
   */
  rebindCallers(current: (agentId: string) => CallerContext | null): void {
    for (const agentId of this.#visible.keys()) if (current(agentId) === null) this.#visible.delete(agentId);
    for (const subscriber of this.#subscribers) {
      const caller = current(subscriber.caller.agentId);
      // Stryker disable next-line StringLiteral: an end reason is read only as 'overflow' or 'client'
      if (caller === null) subscriber.end('removed');
      else subscriber.caller = caller;
    }
    for (const waiter of this.#waiters) {
      const caller = current(waiter.caller.agentId);
      if (caller === null) this.#answer(waiter);
      else waiter.caller = caller;
    }
  }

  /** Parses a `kinds` list; an unknown kind is BAD_ARGS with did_you_mean (decisions §7). */
  parseKinds(list: readonly string[] | undefined, where: string): ReadonlySet<string> | null | Failure {
    if (list === undefined) return null;
    const kinds = new Set<string>();
    for (const kind of list) {
      if (kind === '') continue;
      if (!this.#kinds.has(kind)) {
        const shown = kind.length > 64 ? `${kind.slice(0, 64)}…` : kind;
        // decisions §11: suggestions only for values of at most 64 characters.
        const suggestions = kind.length <= 64 ? nearest(kind, this.#kindList, 5) : undefined;
        return badArgsFailure(`${where}: unknown event kind '${shown}' (GET /capabilities lists event_kinds)`, suggestions);
      }
      kinds.add(kind);
    }
    return kinds.size === 0 ? null : kinds;
  }

  /**
   * GET /events: a new stream from `since` (undefined: live only). The caller has its stream lease
   * already. Returns the subscriber; its `done` settles when the stream has ended.
   */
  subscribe(options: {
    caller: CallerContext;
    kinds: ReadonlySet<string> | null;
    since: number | undefined;
    sink: StreamSink;
    lease: StreamLease;
  }): Subscriber {
    const { caller, kinds } = options;
    const backlog: StoredEvent[] = [];
    let preamble: Uint8Array | null = null;
    if (options.since !== undefined) {
      const since = Math.min(options.since, this.#seq);
      const gap = this.#gapAfter(since);
      if (gap) preamble = Buffer.from(`event: gap\ndata: ${JSON.stringify(gap)}\n\n`);
      this.#ring.forEachAfter(since, (event) => {
        if ((kinds === null || kinds.has(event.kind)) && canSee(caller, event)) backlog.push(event);
        return true;
      });
    }
    const subscriber = new Subscriber({
      caller,
      kinds,
      sink: options.sink,
      preamble,
      backlog,
      limitBytes: LIMITS.eventStreamBufferBytes,
      chunkBytes: LIMITS.eventStreamChunkBytes,
      onEnd: (s, reason) => this.#ended(s, reason),
    });
    if (this.#stopped) {
      options.lease.release();
      // Stryker disable next-line StringLiteral: an end reason is read only as 'overflow' or 'client'
      subscriber.end('closed');
      return subscriber;
    }
    this.#subscribers.add(subscriber);
    this.#leases.set(subscriber, options.lease);
    return subscriber;
  }

  /**
   * recv_events on the main loop. With wait_ms and nothing to return yet, the request takes a
   * stream lease (decisions §7: waiting recv_events count toward max_event_streams), gives its
   * admission slot back, and waits for a matching event or the deadline.
   */
  recv(input: RecvArgs, caller: CallerContext, slot: Releasable | undefined): Promise<Outcome<RecvResult>> | Outcome<RecvResult> {
    const kinds = this.parseKinds(input.kinds, 'args.kinds');
    if (kinds !== null && 'ok' in kinds) return kinds;
    const args = { since_seq: input.since_seq ?? 0, max: input.max ?? LIMITS.recvEventsMaxDefault };
    const waitMs = Math.min(input.wait_ms ?? 0, LIMITS.recvEventsWaitMaxMs);
    const first = this.#query(args, kinds, caller);
    if (first.count > 0 || waitMs <= 0 || this.#stopped) return { ok: true, value: first };
    const lease = this.streamLeases.takeFor(caller);
    if (isFailure(lease)) return lease;
    // The slot goes back only now, after admission, permission and the first look: from here the
    // request holds no admission slot (the permit's release is idempotent; cmd's finally is a no-op).
    slot?.release();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        caller,
        kinds,
        args,
        lease,
        resolve,
        timer: setTimeout(() => this.#answer(waiter), waitMs),
      };
      this.#waiters.add(waiter);
    });
  }

  #store(kind: string, tick: number, atUtc: string, kingdomIds: readonly number[], fields: EventFields | undefined, restrict: Restriction | null): StoredEvent {
    // Only an event naming several kingdoms has a fog form (audience.ts fogClaim).
    const hides = this.#fogHides.get(kind) ?? null;
    const event = new StoredEvent(++this.#seq, kind, tick, atUtc, kingdomIds, fields, restrict, hides);
    this.#ring.push(event);
    this.#published++;
    this.kindCounts.set(kind, (this.kindCounts.get(kind) ?? 0) + 1);
    return event;
  }

  #fanOut(events: readonly StoredEvent[]): void {
    for (const subscriber of this.#subscribers) {
      for (const event of events) if (subscriber.wants(event)) subscriber.offer(event);
    }
    for (const waiter of this.#waiters) {
      for (const event of events) {
        if ((waiter.kinds === null || waiter.kinds.has(event.kind)) && canSee(waiter.caller, event)) {
          this.#answer(waiter);
          break;
        }
      }
    }
  }

  /** Called once per waiter: every caller takes it from #waiters, and its timer goes with it. */
  #answer(waiter: Waiter): void {
    this.#waiters.delete(waiter);
    clearTimeout(waiter.timer);
    waiter.lease.release();
    waiter.resolve({ ok: true, value: this.#query(waiter.args, waiter.kinds, waiter.caller) });
  }

  /**
   * Events after since_seq the caller may see, oldest first, at most max. next_cursor is the seq to
   * ask from next time: the last one returned, or, when fewer than max matched, the newest seq the
   * caller may see (visibleSeq), so its steps never count events hidden from it. Nothing after that
   * seq is visible to the caller, so the look stops there.
   */
  #query(args: { since_seq: number; max: number }, kinds: ReadonlySet<string> | null, caller: CallerContext): RecvResult {
    const since = Math.min(args.since_seq, this.#seq);
    const visible = this.visibleSeq(caller);
    const items: string[] = [];
    let cursor = visible;
    if (since < visible) {
      this.#ring.forEachAfter(since, (event) => {
        // Stryker disable next-line BooleanLiteral: nothing after `visible` is visible to the caller, so going on adds nothing
        if (event.seq > visible) return false;
        if ((kinds === null || kinds.has(event.kind)) && canSee(caller, event)) {
          items.push(event.jsonFor(caller));
          if (items.length === args.max) {
            cursor = event.seq;
            return false;
          }
        }
        return true;
      });
    }
    const result: RecvResult = { items, count: items.length, next_cursor: cursor, oldest_seq: this.#oldestSeq() };
    const gap = this.#gapAfter(since);
    if (gap) result.gap = gap;
    return result;
  }

  /** The oldest seq kept; with nothing kept, the next seq to come. */
  #oldestSeq(): number {
    return this.#ring.oldestSeq ?? this.#seq + 1;
  }

  /** decisions §7: events after `since` that the history no longer holds. */
  #gapAfter(since: number): { from: number; to: number } | null {
    const oldest = this.#oldestSeq();
    return since + 1 < oldest ? { from: since + 1, to: oldest - 1 } : null;
  }

  #ended(subscriber: Subscriber, reason: EndReason): void {
    this.#subscribers.delete(subscriber);
    this.#leases.get(subscriber)?.release();
    this.#leases.delete(subscriber);
    if (reason === 'overflow') {
      this.#overflowed++;
      this.#log.warn(
        { agent: subscriber.caller.agentId, buffer_bytes: LIMITS.eventStreamBufferBytes },
        'an event stream fell a whole buffer behind its client and was closed; the client can resume with Last-Event-ID',
      );
    }
  }
}
