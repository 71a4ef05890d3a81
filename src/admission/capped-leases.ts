// decisions §10 and §13: a pool of places that agents hold for a long time without an admission
// slot (event streams with waiting recv_events, gcb mcp --http sessions). Two rules keep one agent,
// or two, from taking the whole pool:
// - in multi-agent mode one agent holds at most half of it, rounded up;
// - a quarter of it, rounded down, is kept for agents holding read_all, so players can never lock
//   out the god or an observer. Legacy mode's one credential holds read_all, so it may use it all.
import { busyFailure, type Failure } from '../errors/failures.ts';

export interface Lease {
  /** Idempotent: the place comes back exactly once. */
  release(): void;
}

/** The words of the BUSY messages: what the places are, and how a client frees one. */
export interface SlotWords {
  /** Plural, e.g. "event streams". */
  noun: string;
  /** Where the cap comes from, e.g. "[Bridge] max_event_streams". */
  cap: string;
  /** What counts toward the cap besides the obvious, said when it is full. */
  counts?: string;
  /** How a client gives one back, e.g. "close one". */
  freeOne: string;
}

/** Who takes a place. */
export interface Taker {
  agentId: string;
  readAll: boolean;
  /** Several agents share the pool: each holds at most its half. */
  multiAgent: boolean;
}

export class CappedLeases {
  readonly limit: number;
  /** What one agent may hold in multi-agent mode. */
  readonly perAgent: number;
  /** Places only agents with read_all may take. */
  readonly reserved: number;
  readonly #words: SlotWords;
  readonly #byAgent = new Map<string, number>();
  #inUse = 0;
  /** Places held by agents without read_all: at most limit - reserved. */
  #unreserved = 0;

  constructor(limit: number, words: SlotWords) {
    this.limit = limit;
    this.perAgent = Math.ceil(limit / 2);
    this.reserved = Math.floor(limit / 4);
    this.#words = words;
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** The BUSY failure when every place is taken, else null: a check before costly work. */
  whenFull(): Failure | null {
    if (this.#inUse < this.limit) return null;
    const { noun, cap, counts, freeOne } = this.#words;
    return busyFailure(`all ${this.limit} ${noun} are taken (${cap}${counts === undefined ? '' : `; ${counts}`}); ${freeOne} of yours, or retry later`);
  }

  /**
   * A place for this agent, or the BUSY failure that says which cap is full. `readAll` is fixed at
   * the moment of taking: the lease gives back what it took even if the agent's role changes.
   */
  take({ agentId, readAll, multiAgent }: Taker): Lease | Failure {
    const full = this.whenFull();
    if (full) return full;
    const { noun, cap, freeOne } = this.#words;
    const held = this.#byAgent.get(agentId) ?? 0;
    if (multiAgent && held >= this.perAgent) {
      return busyFailure(
        `agent '${agentId}' already holds ${held} ${noun}, its share (half of the ${this.limit} of ${cap}, rounded up); ${freeOne}, or retry later`,
      );
    }
    if (!readAll && this.#unreserved >= this.limit - this.reserved) {
      return busyFailure(
        `the ${this.limit - this.reserved} ${noun} open to agents without read_all are all taken; the other ${this.reserved} ` +
          `(a quarter of the ${this.limit} of ${cap}) are kept for agents with read_all (god, observer, narrator); retry later`,
      );
    }
    this.#inUse++;
    if (!readAll) this.#unreserved++;
    this.#byAgent.set(agentId, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inUse--;
        if (!readAll) this.#unreserved--;
        const left = (this.#byAgent.get(agentId) ?? 1) - 1;
        if (left === 0) this.#byAgent.delete(agentId);
        else this.#byAgent.set(agentId, left);
      },
    };
  }
}

export function isRefusal(value: Lease | Failure): value is Failure {
  return 'ok' in value;
}
