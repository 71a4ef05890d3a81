// decisions §13: the main loop's time is shared too. Reading and parsing a large request body is
// the costliest thing a request does before admission (a 1 MB body takes tens of milliseconds of
// the one main loop), so each agent reads and parses one large body at a time: an agent sending
// many at once waits behind its own, and every other agent's request still gets its turn between
// two of them. Small bodies, the common case, never wait.

/** Gives the agent's turn to its next large body. Idempotent. */
export type BodyTurnRelease = () => void;

export class BodyGate {
  /** Per agent: the promise that resolves when its last queued large body is done. */
  readonly #tails = new Map<string, Promise<void>>();

  /** Agents with a large body being read or waiting (for tests and stats). */
  get busyAgents(): number {
    return this.#tails.size;
  }

  /** Resolves once `agentId` has no other large body being read; the caller releases after parsing. */
  async enter(agentId: string): Promise<BodyTurnRelease> {
    const previous = this.#tails.get(agentId);
    let open!: () => void;
    const done = new Promise<void>((resolve) => (open = resolve));
    const tail = previous ? previous.then(() => done) : done;
    this.#tails.set(agentId, tail);
    if (previous) await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      open();
      // The last in line leaves no entry behind.
      if (this.#tails.get(agentId) === tail) this.#tails.delete(agentId);
    };
  }
}
