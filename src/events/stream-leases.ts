// decisions §7, §10 and §13: event streams and waiting recv_events share `[Bridge]
// max_event_streams`, with the caps every long-held pool has (admission/capped-leases.ts): half per
// agent in multi-agent mode, a quarter kept for read_all. They hold no admission slot.
import { CappedLeases, type Lease } from '../admission/capped-leases.ts';
import { PERMISSIONS } from '../auth/permissions.ts';
import type { Failure } from '../errors/bridge-error.ts';
import type { CallerContext } from '../shared/caller.ts';

export type StreamLease = Lease;
export { isRefusal as isFailure } from '../admission/capped-leases.ts';

const WORDS = {
  noun: 'event streams',
  cap: '[Bridge] max_event_streams',
  counts: 'streams and waiting recv_events count',
  freeOne: 'close one',
};

export class StreamLeases extends CappedLeases {
  readonly #multiAgent: boolean;

  constructor(limit: number, multiAgent: boolean) {
    super(limit, WORDS);
    this.#multiAgent = multiAgent;
  }

  /** A place for this caller's stream or wait, or the BUSY failure that says which cap is full. */
  takeFor(caller: CallerContext): StreamLease | Failure {
    return this.take({ agentId: caller.agentId, readAll: (caller.permissions & PERMISSIONS.read_all) !== 0, multiAgent: this.#multiAgent });
  }
}
