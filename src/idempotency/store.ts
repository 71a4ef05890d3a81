// decisions §8 and §13: the answers of keyed POST /cmd requests, kept on the main loop so a retry
// after a dropped connection or a timeout gets the first answer instead of running the action again.
// Bounded by age and by bytes, split per agent; nothing survives a restart of the bridge.
import { LIMITS } from '../limits.ts';

/** A final answer as sent: replayed byte for byte. */
export interface KeptAnswer {
  status: number;
  body: string;
  /** The error code, for the replay's log line and audit record (null for a success). */
  code: string | null;
}

/** What a keyed request does next. */
export type Claim =
  /**
   * First of its key: run, then `finish` with the answer (null when nothing ran); it says whether the
   * answer was kept. `fits` says beforehand whether it would be, for an answer sent before `finish`.
   */
  | { kind: 'run'; fits(answer: KeptAnswer): boolean; finish(answer: KeptAnswer | null): boolean }
  /** Answered before: send it again. */
  | { kind: 'replay'; answer: KeptAnswer }
  /** The first is still queued or running: its answer, or null when it turned out not to run. */
  | { kind: 'wait'; answer: Promise<KeptAnswer | null> }
  /** The key was used for another request. */
  | { kind: 'conflict' };

interface Entry {
  id: string;
  fingerprint: string;
  /** null while the first request runs. */
  answer: KeptAnswer | null;
  /** Retries waiting for the first run's answer; null until one does (most keys never see a retry). */
  waiters: Array<(answer: KeptAnswer | null) => void> | null;
  expiresAt: number;
  /** What the kept answer counts against its agent's share. */
  bytes: number;
  /** The agent's next kept answer, newer than this one. */
  newer: Entry | null;
}

/** One agent's kept answers, a queue oldest first (they finished in order, so they expire in order). */
interface Holder {
  bytes: number;
  oldest: Entry | null;
  newest: Entry | null;
}

export interface IdempotencyOptions {
  /** `[Bridge] idempotency_budget_mb` in bytes: all the kept answers together. */
  budgetBytes?: number;
  /** The agents that may keep answers; each holds at most budget / count. setAgents changes them. */
  agents?: Iterable<string>;
  ttlMs?: number;
  now?: () => number;
}

/** What a kept answer costs: its body's UTF-8 bytes and the fixed cost of its key, fingerprint and entry. */
function costOf(answer: KeptAnswer): number {
  return Buffer.byteLength(answer.body) + LIMITS.idempotencyEntryOverheadBytes;
}

/**
 * Keys are scoped to a credential (an agent): two agents may use the same key for different
 * requests. Each agent holds at most its share of the budget and, to keep a new answer, loses its
 * own oldest ones, never another agent's; so one agent's flood neither grows the process nor pushes
 * out what another agent kept. Every operation is O(1) but for the answers it drops.
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #holders = new Map<string, Holder>();
  /** The holders in turn (a live iterator of the Map): each claim also expires one agent's old answers, so an idle agent's are freed too. */
  #turns: Iterator<Holder> = this.#holders.values();
  readonly #budgetBytes: number;
  #share = 0;
  #bytes = 0;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #replays = 0;

  constructor(options: IdempotencyOptions = {}) {
    this.#budgetBytes = options.budgetBytes ?? LIMITS.idempotencyBudgetMbDefault * 1024 * 1024;
    this.#ttlMs = options.ttlMs ?? LIMITS.idempotencyTtlMs;
    this.#now = options.now ?? Date.now;
    this.setAgents(options.agents ?? []);
  }

  /** Answers replayed so far (GET /metrics: idempotentReplays). */
  get replays(): number {
    return this.#replays;
  }

  /** Keys held now, running or answered. */
  get size(): number {
    return this.#entries.size;
  }

  /** What the kept answers count against the budget now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** What one agent's kept answers count now. */
  bytesOf(agentId: string): number {
    return this.#holders.get(agentId)?.bytes ?? 0;
  }

  /** The most one agent may hold: the budget divided by the number of agents. */
  get share(): number {
    return this.#share;
  }

  /**
   * decisions §10: the agents now (agents.json reloaded). A removed agent's answers go (its
   * credentials are gone, so nothing could replay them); every agent gets the new share, and one
   * that holds more loses its oldest answers down to it.
   */
  setAgents(agentIds: Iterable<string>): void {
    const wanted = new Set(agentIds);
    for (const [agentId, holder] of this.#holders) {
      if (wanted.has(agentId)) continue;
      while (holder.oldest) this.#dropOldest(holder);
      this.#holders.delete(agentId);
    }
    for (const agentId of wanted) if (!this.#holders.has(agentId)) this.#holders.set(agentId, { bytes: 0, oldest: null, newest: null });
    this.#share = wanted.size === 0 ? 0 : Math.floor(this.#budgetBytes / wanted.size);
    for (const holder of this.#holders.values()) while (holder.bytes > this.#share) this.#dropOldest(holder);
  }

  /** `fingerprint` stands for the request's name and args: the same key with another one is a conflict. */
  claim(scope: string, key: string, fingerprint: string): Claim {
    // A key is printable ASCII, so the first NUL separates it from the scope.
    const id = `${key}\0${scope}`;
    const holder = this.#holders.get(scope);
    // The claimant's own expired answers go first, so none of them is found below.
    if (holder) this.#expire(holder);
    this.#expireNextInTurn();
    const entry = this.#entries.get(id);
    if (entry === undefined) return this.#start(id, scope, fingerprint);
    if (entry.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (entry.answer !== null) {
      this.#replays++;
      return { kind: 'replay', answer: entry.answer };
    }
    const waiters = (entry.waiters ??= []);
    return {
      kind: 'wait',
      answer: new Promise((resolve) =>
        waiters.push((answer) => {
          if (answer !== null) this.#replays++;
          resolve(answer);
        }),
      ),
    };
  }

  #start(id: string, scope: string, fingerprint: string): Claim {
    const entry: Entry = { id, fingerprint, answer: null, waiters: null, expiresAt: Infinity, bytes: 0, newer: null };
    this.#entries.set(id, entry);
    let finished = false;
    return {
      kind: 'run',
      fits: (answer) => this.#fits(this.#holders.get(scope), costOf(answer)),
      finish: (answer) => {
        if (finished) return false;
        finished = true;
        const waiters = entry.waiters;
        entry.waiters = null;
        const kept = answer !== null && this.#keep(scope, entry, answer);
        // Not kept: the next request with the key runs. A retry already waiting still gets this
        // answer: the first run did happen, only its answer is not held for later ones.
        if (!kept) this.#entries.delete(id);
        if (waiters) for (const waiter of waiters) waiter(answer);
        return kept;
      },
    };
  }

  /** An answer is kept when its body is at most 256 KiB and its agent is (still) one of the agents, with a share it fits in. */
  #fits(holder: Holder | undefined, cost: number): holder is Holder {
    return holder !== undefined && cost <= LIMITS.idempotencyMaxAnswerBytes + LIMITS.idempotencyEntryOverheadBytes && cost <= this.#share;
  }

  #keep(scope: string, entry: Entry, answer: KeptAnswer): boolean {
    const holder = this.#holders.get(scope);
    const bytes = costOf(answer);
    if (!this.#fits(holder, bytes)) return false;
    // The agent's own oldest answers make room; another agent's are never touched.
    while (holder.bytes + bytes > this.#share) this.#dropOldest(holder);
    entry.answer = answer;
    entry.bytes = bytes;
    entry.expiresAt = this.#now() + this.#ttlMs;
    if (holder.newest) holder.newest.newer = entry;
    else holder.oldest = entry;
    holder.newest = entry;
    holder.bytes += bytes;
    this.#bytes += bytes;
    return true;
  }

  #expireNextInTurn(): void {
    let next = this.#turns.next();
    if (next.done) {
      this.#turns = this.#holders.values();
      next = this.#turns.next();
    }
    if (!next.done) this.#expire(next.value);
  }

  /** Drops an agent's answers past their ttl (they sit at the front of its queue). */
  #expire(holder: Holder): void {
    const now = this.#now();
    while (holder.oldest && holder.oldest.expiresAt <= now) this.#dropOldest(holder);
  }

  #dropOldest(holder: Holder): void {
    const entry = holder.oldest!;
    holder.oldest = entry.newer;
    if (holder.oldest === null) holder.newest = null;
    holder.bytes -= entry.bytes;
    this.#bytes -= entry.bytes;
    this.#entries.delete(entry.id);
  }
}
