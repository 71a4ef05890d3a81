import { LIMITS } from '../limits.ts';
import type { FrameJob, FrameJobs } from '../shared/frame.ts';
import { kJobs } from '../shared/layout.ts';

/**
 * spec Limits: the per-frame job registry holds at most 32 jobs at once (invoke_power pulses are
 * its only user). Lives on the game thread; the count is mirrored in shared memory for health/bench.
 */
export class JobRegistry implements FrameJobs {
  readonly capacity: number;
  #jobs: FrameJob[] = [];
  readonly #control: Int32Array;

  constructor(control: Int32Array, capacity: number = LIMITS.jobRegistrySize) {
    this.#control = control;
    this.capacity = capacity;
  }

  get size(): number {
    return this.#jobs.length;
  }

  /** false when the registry is full: the caller answers 503 BUSY naming the registry. */
  register(job: FrameJob): boolean {
    if (this.#jobs.length >= this.capacity) return false;
    this.#jobs.push(job);
    Atomics.store(this.#control, kJobs, this.#jobs.length);
    return true;
  }

  /** One step of every job, in registration order; finished jobs leave the registry. */
  step(): void {
    let kept = 0;
    for (const job of this.#jobs) {
      let finished: boolean;
      try {
        finished = job.step();
      } catch {
        finished = true; // a job settles its own promise on error; it must never stop the frame
      }
      if (!finished) this.#jobs[kept++] = job;
    }
    this.#jobs.length = kept;
    Atomics.store(this.#control, kJobs, kept);
  }

  cancelAll(): void {
    for (const job of this.#jobs) job.cancel?.();
    this.#jobs = [];
    Atomics.store(this.#control, kJobs, 0);
  }
}
