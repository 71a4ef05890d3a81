// The per-frame jobs as a frame handler sees them. The registry itself lives with the dispatcher
// (src/dispatch/jobs.ts); command modules know only this shape, so they never import dispatch.

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
