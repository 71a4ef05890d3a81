// Histograms kept in shared memory (decisions §9: /metrics). The game thread alone writes them, one
// observation per frame or per drained entry; the main loop reads them only when /metrics is
// scraped, so the frame pays a short bucket scan and nothing crosses threads.

/** One histogram's place in the shared Float64Array: a count per bucket (the last is +Inf), then sum and count. */
export interface HistogramSpec {
  readonly offset: number;
  /** Upper bounds, ascending; the +Inf bucket follows them. */
  readonly bounds: readonly number[];
}

/** Seconds an entry waited in the queue before the game thread reached it: one frame is ~17 ms, the deadline 30 s. */
export const QUEUE_WAIT_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.0167, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;
/** Seconds of one frame's work (the game's update when the bridge runs the loop, the drain, the jobs). */
export const FRAME_DURATION_BOUNDS = [0.0005, 0.001, 0.002, 0.004, 0.008, 0.0167, 0.033, 0.05, 0.1, 0.25, 0.5, 1] as const;
/** Items run in one frame: at most 32 entries, at most 256 items (decisions §8). */
export const FRAME_ITEMS_BOUNDS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256] as const;

const words = (bounds: readonly number[]) => bounds.length + 3;

export const hQueueWait: HistogramSpec = { offset: 0, bounds: QUEUE_WAIT_BOUNDS };
export const hFrameDuration: HistogramSpec = { offset: hQueueWait.offset + words(QUEUE_WAIT_BOUNDS), bounds: FRAME_DURATION_BOUNDS };
export const hFrameItems: HistogramSpec = { offset: hFrameDuration.offset + words(FRAME_DURATION_BOUNDS), bounds: FRAME_ITEMS_BOUNDS };
/** Float64 words every histogram takes together. */
export const HISTOGRAM_WORDS = hFrameItems.offset + words(FRAME_ITEMS_BOUNDS);

/** One observation (game thread only: the words are plain, not atomic, as the frame stats are). */
export function observe(view: Float64Array, spec: HistogramSpec, value: number): void {
  const { offset, bounds } = spec;
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  view[offset + i]! += 1;
  view[offset + bounds.length + 1]! += value;
  view[offset + bounds.length + 2]! += 1;
}

export interface HistogramSnapshot {
  /** Cumulative counts per bound, then +Inf (Prometheus' `le` buckets). */
  cumulative: number[];
  sum: number;
  count: number;
}

export function readHistogram(view: Float64Array, spec: HistogramSpec): HistogramSnapshot {
  const { offset, bounds } = spec;
  const cumulative = new Array<number>(bounds.length + 1);
  let running = 0;
  for (let i = 0; i <= bounds.length; i++) {
    running += view[offset + i]!;
    cumulative[i] = running;
  }
  return { cumulative, sum: view[offset + bounds.length + 1]!, count: view[offset + bounds.length + 2]! };
}
