// The per-frame jobs as a frame handler sees them. The registry itself lives with the dispatcher
// (src/dispatch/jobs.ts); command modules know only this shape, so they never import dispatch.
import type { EventBatch } from './protocol.ts';

/** A per-frame job: step() runs once a frame and returns true when the job is finished. */
export interface FrameJob {
  step(): boolean;
  /** Called instead of further steps when the bridge stops. */
  cancel?(): void;
}

/** What a frame handler may do with the game thread's job registry. */
export interface FrameJobs {
  /** At most this many jobs at once (spec Limits: 32). */
  readonly capacity: number;
  readonly size: number;
  /** false when the registry is full: the caller answers 503 BUSY naming the registry. */
  register(job: FrameJob): boolean;
}

/** The game thread's event collector as the drainer uses it (events/collector.ts builds it). */
export interface Collector {
  /** host.emit: cheap, never throws into game code. */
  emit(kind: string, fields?: Record<string, unknown>, kingdomIds?: readonly number[]): void;
  /** End of a frame: hand the batch over (nothing when there is none). */
  flush(): void;
  /** The batch collected so far, taken out to travel with an answer; null when there is none. */
  take(): EventBatch | null;
  /** Sends a taken batch on its own after all (its answer could not carry it). */
  send(batch: EventBatch): void;
}
