// decisions §8: the answers of keyed POST /cmd requests, kept on the main loop so a retry after a
// dropped connection or a timeout gets the first answer instead of running the action again.
// Bounded by count and age; nothing survives a restart of the bridge.
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
  /** First of its key: run, then `finish` with the answer to keep, or null when nothing ran. */
  | { kind: 'run'; finish(answer: KeptAnswer | null): void }
  /** Answered before: send it again. */
  | { kind: 'replay'; answer: KeptAnswer }
  /** The first is still queued or running: its answer, or null when it turned out not to run. */
  | { kind: 'wait'; answer: Promise<KeptAnswer | null> }
  /** The key was used for another request. */
  | { kind: 'conflict' };

interface Entry {
  fingerprint: string;
  /** null while the first request runs. */
  answer: KeptAnswer | null;
  waiters: Array<(answer: KeptAnswer | null) => void>;
  expiresAt: number;
}

export interface IdempotencyOptions {
  maxKeys?: number;
  ttlMs?: number;
  now?: () => number;
}

/**
 * Keys are scoped to a credential (an agent): two agents may use the same key for different
 * requests. A Map keeps insertion order and a finished entry is re-inserted, so the finished ones
 * sit oldest first: expiry and the 10000-key bound both drop from the front.
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxKeys: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #replays = 0;

  constructor(options: IdempotencyOptions = {}) {
    this.#maxKeys = options.maxKeys ?? LIMITS.idempotencyMaxKeys;
    this.#ttlMs = options.ttlMs ?? LIMITS.idempotencyTtlMs;
    this.#now = options.now ?? Date.now;
  }

  /** Answers replayed so far (GET /metrics: idempotentReplays). */
  get replays(): number {
    return this.#replays;
  }

  /** Keys held now, running or answered. */
  get size(): number {
    return this.#entries.size;
  }

  /** `fingerprint` stands for the request's name and args: the same key with another one is a conflict. */
  claim(scope: string, key: string, fingerprint: string): Claim {
    // A key is printable ASCII, so the first NUL separates it from the scope.
    const id = `${key}\0${scope}`;
    this.#sweep();
    const entry = this.#entries.get(id);
    if (entry === undefined) return this.#start(id, fingerprint);
    if (entry.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (entry.answer !== null) {
      this.#replays++;
      return { kind: 'replay', answer: entry.answer };
    }
    return {
      kind: 'wait',
      answer: new Promise((resolve) =>
        entry.waiters.push((answer) => {
          if (answer !== null) this.#replays++;
          resolve(answer);
        }),
      ),
    };
  }

  #start(id: string, fingerprint: string): Claim {
    const entry: Entry = { fingerprint, answer: null, waiters: [], expiresAt: Infinity };
    this.#entries.set(id, entry);
    this.#bound();
    let finished = false;
    return {
      kind: 'run',
      finish: (answer) => {
        if (finished) return;
        finished = true;
        const waiters = entry.waiters;
        entry.waiters = [];
        // An answer that means nothing ran is not kept: the next request with the key runs.
        if (this.#entries.get(id) === entry) this.#entries.delete(id);
        if (answer !== null) {
          entry.answer = answer;
          entry.expiresAt = this.#now() + this.#ttlMs;
          this.#entries.set(id, entry);
          this.#bound();
        }
        for (const waiter of waiters) waiter(answer);
      },
    };
  }

  /** Drops expired answers from the front (running entries have no expiry yet and are stepped over). */
  #sweep(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (entry.answer === null) continue;
      if (entry.expiresAt > now) return;
      this.#entries.delete(id);
    }
  }

  /** At most maxKeys: the oldest answers go first; a running entry is never dropped (its retries wait on it). */
  #bound(): void {
    if (this.#entries.size <= this.#maxKeys) return;
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxKeys) return;
      if (entry.answer !== null) this.#entries.delete(id);
    }
  }
}
