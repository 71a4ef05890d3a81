// decisions §13: the main loop's time is shared too. Reading and parsing a large request body, or
// building and writing a large answer, holds the one main loop for milliseconds (a 1 MB body about
// 15 ms here), and an agent sending such requests back to back would leave every other agent's
// requests waiting behind them. So an agent's large transfers are paced:
// - its large bodies are read one at a time, in arrival order;
// - every large body read and large answer built puts the agent to rest for its size at the
//   agent's byte rate, and its next request is read only once the rest is over.
// Small requests of an agent that is not resting, the common case, never wait and cost one lookup.
import { sleep } from '../shared/sleep.ts';

/** Ends a large body's turn with the bytes it read: the agent rests for them. Idempotent. */
export type BodyTurnRelease = (bytesRead: number) => void;

export interface GateClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: GateClock = { now: () => performance.now(), sleep };

export class TransferGate {
  /** Per agent: the promise that resolves when its last queued large body is done. */
  readonly #tails = new Map<string, Promise<void>>();
  /** Per agent that rests: when the rest ends (the clock's ms). Past entries go when next looked at. */
  readonly #restUntil = new Map<string, number>();
  readonly #msPerByte: number;

  constructor(
    restMsPerMiB: number,
    private readonly clock: GateClock = REAL_CLOCK,
  ) {
    this.#msPerByte = restMsPerMiB / (1024 * 1024);
  }

  /** Agents with a large body being read or waiting, or at rest (for tests and stats). */
  get busyAgents(): number {
    const agents = new Set(this.#tails.keys());
    for (const agentId of this.#restUntil.keys()) if (this.restMs(agentId) > 0) agents.add(agentId);
    return agents.size;
  }

  /** Agents with a rest on record, over or not: a rest found over is dropped (for tests). */
  get restEntries(): number {
    return this.#restUntil.size;
  }

  /** How long `agentId` still rests, in ms (0 when it may go). */
  restMs(agentId: string): number {
    const until = this.#restUntil.get(agentId);
    if (until === undefined) return 0;
    const left = until - this.clock.now();
    if (left <= 0) this.#restUntil.delete(agentId);
    return Math.max(0, left);
  }

  /**
   * The agent's turn to read a body. A small body: null at once unless the agent rests, else a
   * promise of null at the rest's end. A large body: its release once the agent's earlier large
   * bodies are done and its rest is over; the caller releases it with the bytes read.
   */
  enter(agentId: string, large: boolean): null | Promise<BodyTurnRelease | null> {
    if (large) return this.#enterLarge(agentId);
    return this.restMs(agentId) > 0 ? this.#rest(agentId).then(() => null) : null;
  }

  /** `bytes` more moved for `agentId` (a large answer built): its rest grows by their time at the rate. */
  charge(agentId: string, bytes: number): void {
    const now = this.clock.now();
    const from = Math.max(now, this.#restUntil.get(agentId) ?? now);
    this.#restUntil.set(agentId, from + bytes * this.#msPerByte);
  }

  async #enterLarge(agentId: string): Promise<BodyTurnRelease> {
    const previous = this.#tails.get(agentId);
    let open!: () => void;
    const done = new Promise<void>((resolve) => (open = resolve));
    const tail = previous ? previous.then(() => done) : done;
    this.#tails.set(agentId, tail);
    await previous; // undefined for the first in line: one tick, no wait
    await this.#rest(agentId);
    let released = false;
    return (bytesRead) => {
      if (released) return;
      released = true;
      this.charge(agentId, bytesRead);
      open();
      // The last in line leaves no entry behind.
      if (this.#tails.get(agentId) === tail) this.#tails.delete(agentId);
    };
  }

  /** Sleeps out the agent's rest; a charge made meanwhile (an answer of the agent's built) is slept out too. */
  async #rest(agentId: string): Promise<void> {
    for (let left = this.restMs(agentId); left > 0; left = this.restMs(agentId)) await this.clock.sleep(left);
  }
}
