// decisions §13 and §15: the main loop's time is shared too. Reading and parsing a request body, or
// building and writing an answer, holds the one main loop for a time that grows with its bytes (a
// 1 MB body about 15 ms here), and an agent sending bodies back to back, large ones or small ones
// on many connections, would leave every other agent's requests waiting behind them. So all of an
// agent's body bytes are paced together, whatever their sizes, at the agent's byte rate:
// - every body read and every answer built moves the agent's rest on by its bytes at the rate (a
//   body of known length when it is let in, so bodies arriving together cannot all pass at once;
//   one of unknown length once read);
// - a body is let in while the agent's rest runs ahead of now by at most one large body's bytes
//   (the allowance, which lets its simultaneous small requests go at once); later ones wait in line;
// - its large bodies (over 64 KiB, or of unknown length) are also read one at a time, in order,
//   and while one of unknown length is read nothing else of the agent's is let in (its bytes are
//   not charged yet).
// So, over any time T, an agent's bodies moved are at most the rate × T, plus the allowance, plus
// one body. Other agents never wait for it.
// The hot path: a small body of an agent within its rate costs one lookup and an addition: no
// timer, no promise, and no clock read either, which costs more than the rest of the gate (50 ns of
// CPU here). An agent's transfers are added up untimed (answers always), and a body reads the clock
// only once they come to what was left of the allowance when it was last read (while idle, about 64
// KiB: some 250 whoami and their answers). What goes untimed would have gone had the clock been
// read, since a rest only shrinks as time passes: the bound holds.
import { LIMITS } from '../limits.ts';
import { sleep } from '../shared/sleep.ts';

/** Ends a large body's turn with the bytes it read (the bytes not charged yet are charged then). Idempotent. */
export type BodyTurnRelease = (bytesRead: number) => void;

export interface GateClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: GateClock = { now: () => performance.now(), sleep };

interface Waiter {
  /** Its Content-Length, or null when unknown (charged once read). */
  bytes: number | null;
  large: boolean;
  admit(release: BodyTurnRelease | null): void;
}

/** One agent's transfers: kept for every agent that sent a body (a bounded set: agents.json's). */
interface AgentTransfers {
  /** When the agent's rest ends (the clock's ms): its transfers so far, at its rate, but the untimed ones. */
  restUntil: number;
  /** Bytes moved since the clock was last read for the agent, not yet in `restUntil`. */
  untimed: number;
  /** What was left of the allowance when the clock was last read (ms at the rate; below 0 when none, -Infinity before the first read). */
  leftMs: number;
  /** A large body of its being read: of a known length (charged), of an unknown one (not yet), or none. */
  reading: 'none' | 'known' | 'unknown';
  /** Its bodies waiting, in arrival order. */
  queue: Waiter[];
  /** A sleep is under way until the first waiter may go. */
  sleeping: boolean;
}

export class TransferGate {
  readonly #agents = new Map<string, AgentTransfers>();
  readonly #msPerByte: number;
  /** The allowance: how far an agent's rest may run ahead of now with its next body still let in. */
  readonly #allowanceMs: number;

  constructor(
    restMsPerMiB: number,
    private readonly clock: GateClock = REAL_CLOCK,
  ) {
    this.#msPerByte = restMsPerMiB / (1024 * 1024);
    this.#allowanceMs = LIMITS.largeBodyBytes * this.#msPerByte;
  }

  /** Bodies waiting for their turn, over all agents (for tests and stats). */
  get waiting(): number {
    let count = 0;
    for (const agent of this.#agents.values()) count += agent.queue.length;
    return count;
  }

  /** How far `agentId`'s rest would run ahead of now were its untimed bytes set against the clock now, in ms (0 when over). */
  restMs(agentId: string): number {
    const agent = this.#agents.get(agentId);
    if (agent === undefined) return 0;
    const now = this.clock.now();
    // The rest left, then the untimed bytes: never now + x − now, whose rounding can give more than x.
    return Math.max(0, agent.restUntil - now) + agent.untimed * this.#msPerByte;
  }

  /**
   * The agent's turn to read a body of `bytes` (its Content-Length; NaN when unknown). A
   * small body of an agent within its rate: null at once, charged. Otherwise a promise: of null for
   * a small body once it may go (charged then), or, for a large one, of its release once the
   * agent's earlier large bodies are done and it may go; the caller releases it with the bytes read.
   */
  enter(agentId: string, bytes: number): null | Promise<BodyTurnRelease | null> {
    const known = bytes >= 0;
    const large = !known || bytes > LIMITS.largeBodyBytes;
    const agent = this.#agent(agentId);
    if (!large && agent.queue.length === 0 && agent.reading !== 'unknown') {
      if ((agent.untimed + bytes) * this.#msPerByte <= agent.leftMs) {
        agent.untimed += bytes;
        return null;
      }
      const now = this.clock.now();
      if (this.#ahead(agent, now) <= this.#allowanceMs) {
        this.#add(agent, now, bytes);
        return null;
      }
    }
    const waiting = new Promise<BodyTurnRelease | null>((admit) => agent.queue.push({ bytes: known ? bytes : null, large, admit }));
    this.#pump(agent);
    return waiting;
  }

  /** `bytes` more moved for `agentId` (an answer built): they count against its next body. */
  charge(agentId: string, bytes: number): void {
    this.#agent(agentId).untimed += bytes;
  }

  #agent(agentId: string): AgentTransfers {
    let agent = this.#agents.get(agentId);
    if (agent === undefined) {
      agent = { restUntil: 0, untimed: 0, leftMs: -Infinity, reading: 'none', queue: [], sleeping: false };
      this.#agents.set(agentId, agent);
    }
    return agent;
  }

  /**
   * Sets the untimed bytes and `bytes` against the clock at `now`: the rest moves on by them, from
   * now when it is over; what is left of the allowance is noted for the untimed ones to come.
   */
  #add(agent: AgentTransfers, now: number, bytes: number): void {
    agent.restUntil = Math.max(now, agent.restUntil) + (agent.untimed + bytes) * this.#msPerByte;
    agent.untimed = 0;
    agent.leftMs = this.#allowanceMs - (agent.restUntil - now);
  }

  /** How far the agent's rest runs ahead of `now`, its untimed bytes counted. */
  #ahead(agent: AgentTransfers, now: number): number {
    this.#add(agent, now, 0);
    return agent.restUntil - now;
  }

  /** Lets in, in order, every waiter that may go now; sleeps until the first that may not. */
  #pump(agent: AgentTransfers): void {
    while (agent.queue.length > 0) {
      // While a large body is read, the large ones wait and the small ones behind them go past;
      // while one of unknown length is read, all wait.
      const index = agent.reading === 'none' ? 0 : agent.reading === 'known' ? agent.queue.findIndex((waiter) => !waiter.large) : -1;
      if (index === -1) return;
      const now = this.clock.now();
      const over = this.#ahead(agent, now) - this.#allowanceMs;
      if (over > 0) return this.#sleep(agent, over);
      const [waiter] = agent.queue.splice(index, 1) as [Waiter];
      const charged = waiter.bytes ?? 0;
      this.#add(agent, now, charged);
      if (!waiter.large) {
        waiter.admit(null);
        continue;
      }
      agent.reading = waiter.bytes === null ? 'unknown' : 'known';
      let released = false;
      waiter.admit((bytesRead) => {
        if (released) return;
        released = true;
        agent.untimed += Math.max(0, bytesRead - charged);
        agent.reading = 'none';
        this.#pump(agent);
      });
    }
  }

  /** One sleep an agent at most; a charge made meanwhile is slept out by the next. */
  #sleep(agent: AgentTransfers, ms: number): void {
    if (agent.sleeping) return;
    agent.sleeping = true;
    void this.clock.sleep(ms).then(() => {
      agent.sleeping = false;
      this.#pump(agent);
    });
  }
}
