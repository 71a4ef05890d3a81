// What a frame handler may do with the game thread's per-frame jobs. Declared here, with the
// commands that use it, and implemented by dispatch/jobs.ts: dispatch runs commands, so the
// dependency points from dispatch/ down to commands/ and never back.

/** A per-frame job: step() runs once a frame and returns true when the job is finished. */
export interface FrameJob {
  step(): boolean;
  /** Called instead of further steps when the bridge stops. */
  cancel?(): void;
}

/** The registry as a command sees it: add a job, or learn that all its places are taken. */
export interface FrameJobs {
  readonly capacity: number;
  /** false when the registry is full: the caller answers 503 BUSY naming the registry. */
  register(job: FrameJob): boolean;
}
