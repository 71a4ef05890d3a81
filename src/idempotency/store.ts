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
  id: string;
  fingerprint: string;
  /** null while the first request runs. */
  answer: KeptAnswer | null;
  /** Retries waiting for the first run's answer; null until one does (most keys never see a retry). */
  waiters: Array<(answer: KeptAnswer | null) => void> | null;
  expiresAt: number;
}

export interface IdempotencyOptions {
  maxKeys?: number;
  ttlMs?: number;
  now?: () => number;
}

/**
 * Keys are scoped to a credential (an agent): two agents may use the same key for different
 * requests. Finished answers also wait in a FIFO in the order they finished, so expiry and the
 * 10000-key bound drop from its front in O(1) (walking a Map from its front after many deletions
 * would step over every deleted slot each time).
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  /** Finished entries, oldest first, from index #head on. */
  #finished: Entry[] = [];
  #head = 0;
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
    this.#expire();
    const entry = this.#entries.get(id);
    if (entry === undefined) return this.#start(id, fingerprint);
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

  #start(id: string, fingerprint: string): Claim {
    const entry: Entry = { id, fingerprint, answer: null, waiters: null, expiresAt: Infinity };
    this.#entries.set(id, entry);
    this.#bound();
    let finished = false;
    return {
      kind: 'run',
      finish: (answer) => {
        if (finished) return;
        finished = true;
        const waiters = entry.waiters;
        entry.waiters = null;
        if (answer !== null) {
          entry.answer = answer;
          entry.expiresAt = this.#now() + this.#ttlMs;
          this.#finished.push(entry);
          // A running entry may have been pushed out by the bound meanwhile: it comes back answered.
          if (this.#entries.get(id) !== entry) this.#entries.set(id, entry);
          this.#bound();
        } else if (this.#entries.get(id) === entry) {
          // An answer that means nothing ran is not kept: the next request with the key runs.
          this.#entries.delete(id);
        }
        if (waiters) for (const waiter of waiters) waiter(answer);
      },
    };
  }

  /** Drops the answers past their ttl (they finished in order, so they sit at the front). */
  #expire(): void {
    const now = this.#now();
    while (this.#head < this.#finished.length && this.#finished[this.#head]!.expiresAt <= now) this.#dropOldest();
  }

  /** At most maxKeys: the oldest answers go first; a running key is never dropped (its retries wait on it). */
  #bound(): void {
    while (this.#entries.size > this.#maxKeys && this.#head < this.#finished.length) this.#dropOldest();
  }

  #dropOldest(): void {
    const entry = this.#finished[this.#head]!;
    this.#finished[this.#head++] = undefined as never;
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id);
    if (this.#head > 1024 && this.#head * 2 > this.#finished.length) {
      this.#finished = this.#finished.slice(this.#head);
      this.#head = 0;
    }
  }
}
