// decisions §7 and §10: event streams and waiting recv_events share `[Bridge] max_event_streams`;
// in multi-agent mode one credential holds at most half of them (rounded up), so one agent cannot
// take every stream. They hold no admission slot.
import type { Failure } from '../errors/bridge-error.ts';

export interface StreamLease {
  /** Idempotent: the slot comes back exactly once. */
  release(): void;
}

export class StreamSlots {
  readonly limit: number;
  /** Per-credential cap, or null in legacy mode (one credential). */
  readonly perAgent: number | null;
  readonly #byAgent = new Map<string, number>();
  #inUse = 0;

  constructor(limit: number, multiAgent: boolean) {
    this.limit = limit;
    this.perAgent = multiAgent ? Math.ceil(limit / 2) : null;
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** A slot for this agent, or the BUSY failure that says which cap is full. */
  take(agentId: string): StreamLease | Failure {
    const held = this.#byAgent.get(agentId) ?? 0;
    if (this.#inUse >= this.limit) {
      return busy(`all ${this.limit} event streams are taken ([Bridge] max_event_streams; streams and waiting recv_events count); retry later`);
    }
    if (this.perAgent !== null && held >= this.perAgent) {
      return busy(
        `agent '${agentId}' already holds ${held} event streams, its share (half of [Bridge] max_event_streams = ${this.limit}); close one, or retry later`,
      );
    }
    this.#inUse++;
    this.#byAgent.set(agentId, held + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inUse--;
        const left = (this.#byAgent.get(agentId) ?? 1) - 1;
        if (left === 0) this.#byAgent.delete(agentId);
        else this.#byAgent.set(agentId, left);
      },
    };
  }
}

function busy(message: string): Failure {
  return { ok: false, code: 'BUSY', message };
}

export function isFailure(value: StreamLease | Failure): value is Failure {
  return 'ok' in value;
}
