// spec step 3: the admission slots. A request takes a slot or waits at most the admission wait,
// then gets 503 BUSY. decisions §10: waiting is per agent. A freed slot goes to the waiting agent
// that holds the fewest slots now (ties: the one whose oldest request has waited longest), FIFO
// within an agent; an agent at its `max_slots` waits even while slots are free. Legacy mode has one
// agent, so it is plain FIFO.
import { busyFailure, type Failure } from '../errors/failures.ts';

/** A held slot. release() is idempotent: the slot is returned exactly once whatever the path. */
export interface Permit {
  release(): void;
}

interface Waiter {
  resolve(permit: Permit | null): void;
  agent: AgentSlots;
  /** Arrival order across every agent: the tie-break of decisions §10. */
  order: number;
  timer: NodeJS.Timeout;
  done: boolean;
  /** The client's signal and our listener on it, removed once the waiter settles. */
  abort: { signal: AbortSignal; listener: () => void } | null;
  /** The agent's next waiter in arrival order, settled or not. */
  next: Waiter | null;
}

/**
 * One agent's share: the slots it holds and its own FIFO of waiters, a list linked through `next`
 * from `first` to `last`. Settled waiters are skipped, and let go, as `first` moves past them.
 */
interface AgentSlots {
  /** Undefined for callers that name no agent: they all count in this one share. */
  id: string | undefined;
  held: number;
  cap: number;
  first: Waiter | null;
  last: Waiter | null;
  /** Waiters in the list not yet settled. */
  live: number;
}

/**
 * The client's abort signal, or where to get it: a function, or an object whose `signal` is read
 * only when the request has to wait (a request's `c.req.raw`: building its signal costs the fast
 * path, and an object already there costs no closure per request).
 */
export type SignalSource = AbortSignal | (() => AbortSignal) | { readonly signal: AbortSignal };

export class Admission {
  readonly limit: number;
  readonly waitMs: number;
  #inUse = 0;
  #live = 0;
  #order = 0;
  #closed = false;
  readonly #agents = new Map<string | undefined, AgentSlots>();
  /** Agents with at least one live waiter: the only ones a freed slot is offered to. */
  readonly #waitingAgents = new Set<AgentSlots>();
  #caps: ReadonlyMap<string | undefined, number> = new Map();

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

  /** Slots one agent holds right now. */
  heldBy(agentId: string): number {
    return this.#agents.get(agentId)?.held ?? 0;
  }

  /** The BUSY failure for a request that acquire() answered null. */
  refusal(): Failure {
    return busyFailure(`all admission slots stayed taken for ${this.waitMs / 1000} s; nothing reached the world, retry`);
  }

  /**
   * decisions §10: per-agent `max_slots` (agents absent from the map may use every slot). Applies at
   * once: a raised cap lets that agent's waiters take free slots now; a lowered one lets the slots
   * held above it finish.
   */
  setMaxSlots(caps: ReadonlyMap<string, number>): void {
    this.#caps = caps;
    for (const agent of this.#agents.values()) agent.cap = this.#caps.get(agent.id) ?? this.limit;
    while (this.#inUse < this.limit) {
      const waiter = this.#pick();
      if (!waiter) break;
      this.#inUse++;
      this.#grant(waiter);
    }
  }

  /**
   * A slot now, or after waiting; null on timeout (BUSY), on abort of `signal` (the client went
   * away: it must not take a slot later) and once closing. `agentId` names whose share it counts in.
   */
  acquire(signal?: SignalSource, agentId?: string): Permit | null | Promise<Permit | null> {
    if (this.#closed) return null;
    const agent = this.#agent(agentId);
    // Invariant: while a slot is free, every live waiter belongs to an agent at its cap. So a free
    // slot and an agent under its cap (whose own queue is then empty) means no one is passed over.
    if (this.#inUse < this.limit && agent.held < agent.cap) {
      // A lazy signal (a function) is not built here: its client is known to be there.
      if (signal instanceof AbortSignal && signal.aborted) return null;
      this.#inUse++;
      agent.held++;
      return this.#permit(agent);
    }
    // Only a request that has to wait needs to hear about its client leaving; the signal is
    // created lazily because building one costs the fast path.
    const abortSignal = signal === undefined || signal instanceof AbortSignal ? signal : typeof signal === 'function' ? signal() : signal.signal;
    if (abortSignal?.aborted) return null;
    return new Promise<Permit | null>((resolve) => {
      const waiter: Waiter = {
        resolve,
        agent,
        order: this.#order++,
        done: false,
        abort: null,
        next: null,
        // #settle clears the timer and removes the listener, whichever settles the waiter: each
        // of them runs at most once, and only while the waiter is live.
        timer: setTimeout(() => this.#settle(waiter, null), this.waitMs),
      };
      if (abortSignal) {
        waiter.abort = { signal: abortSignal, listener: () => this.#settle(waiter, null) };
        abortSignal.addEventListener('abort', waiter.abort.listener);
      }
      if (agent.last) agent.last.next = waiter;
      else agent.first = waiter;
      agent.last = waiter;
      agent.live++;
      this.#live++;
      this.#waitingAgents.add(agent);
    });
  }

  /** Stop admitting; everyone waiting gets null (BUSY) at once. */
  close(): void {
    this.#closed = true;
    for (const agent of [...this.#waitingAgents]) {
      while (agent.live > 0) this.#settle(this.#head(agent), null);
    }
  }

  #agent(id: string | undefined): AgentSlots {
    let agent = this.#agents.get(id);
    if (!agent) {
      agent = { id, held: 0, cap: this.#caps.get(id) ?? this.limit, first: null, last: null, live: 0 };
      this.#agents.set(id, agent);
    }
    return agent;
  }

  /** What a held slot's release() runs: made once, shared by every permit. */
  readonly #release = (agent: AgentSlots): void => {
    agent.held--;
    this.#handOver();
  };

  #permit(agent: AgentSlots): Permit {
    return new HeldSlot(agent, this.#release);
  }

  /** A freed slot goes straight to the next waiter by the fair rule, or back to the pool. */
  #handOver(): void {
    const waiter = this.#pick();
    if (waiter) this.#grant(waiter);
    else this.#inUse--;
  }

  #grant(waiter: Waiter): void {
    waiter.agent.held++;
    this.#settle(waiter, this.#permit(waiter.agent));
  }

  /**
   * decisions §10: among agents under their cap with a live waiter, the one holding the fewest
   * slots; on a tie, the one whose oldest waiter came first. Agents waiting at once are few, so a
   * scan is cheaper than keeping a heap in order as holdings change.
   */
  #pick(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const agent of this.#waitingAgents) {
      if (agent.held >= agent.cap) continue;
      const first = this.#head(agent);
      const firstCame =
        agent.held === best?.agent.held &&
        // Stryker disable next-line EqualityOperator: orders are unique, so two oldest waiters never tie
        first.order < best.order;
      if (!best || agent.held < best.agent.held || firstCame) best = first;
    }
    return best;
  }

  /**
   * The agent's oldest live waiter; the settled ones before it are let go. Only for an agent with a
   * live waiter: one in the waiting set (#settle takes an agent out with its last live waiter).
   */
  #head(agent: AgentSlots): Waiter {
    let waiter = agent.first!;
    while (waiter.done) waiter = waiter.next!;
    agent.first = waiter;
    return waiter;
  }

  #settle(waiter: Waiter, permit: Permit | null): void {
    waiter.done = true;
    this.#live--;
    waiter.agent.live--;
    clearTimeout(waiter.timer);
    if (waiter.abort) waiter.abort.signal.removeEventListener('abort', waiter.abort.listener);
    if (waiter.agent.live === 0) {
      // Settled waiters of an agent with none left are let go now, not on the next hand-over.
      waiter.agent.first = null;
      waiter.agent.last = null;
      this.#waitingAgents.delete(waiter.agent);
    }
    waiter.resolve(permit);
  }
}

/**
 * A slot held by `agent`. A class rather than a closure: one small object per request instead of
 * a closure, its context and a wrapper object (the admission slot is taken by every /health and
 * POST /cmd).
 */
class HeldSlot implements Permit {
  #released = false;
  readonly #agent: AgentSlots;
  readonly #giveBack: (agent: AgentSlots) => void;
  constructor(agent: AgentSlots, giveBack: (agent: AgentSlots) => void) {
    this.#agent = agent;
    this.#giveBack = giveBack;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#giveBack(this.#agent);
  }
}
