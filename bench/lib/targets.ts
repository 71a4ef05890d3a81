// The request path's targets, in one place: `npm run bench` (its throughput and main-loop rows) and
// `npm run bench:profile -- --references` judge against these. Each is a ratio to a reference
// measured in the same run, so a loaded machine moves both sides together.

export interface RequestPathTarget {
  /** The reference the ratios are taken against. */
  reference: string;
  /** Requests/s at least this share of the reference's. */
  minThroughput: number;
  /** Main-thread CPU (or instructions) per request at most this multiple of the reference's. */
  maxCpu: number;
  /** p99 latency at most this, where the endpoint has one. */
  maxP99Ms?: number;
}

export const REQUEST_PATH_TARGETS = {
  // GET /health: credential and Host check, request id, admission slot, log line and metrics on top
  // of bare hono's GET.
  health: { reference: 'bare hono GET', minThroughput: 0.75, maxCpu: 1.3, maxP99Ms: 2 },
  // POST whoami (a pool command): the same work plus argument schema and audit record, on top of
  // bare hono handing each POST to a piscina pool set up as the bridge's (the design's floor).
  whoami: { reference: 'bare hono + piscina', minThroughput: 0.75, maxCpu: 1.3 },
} as const satisfies Record<string, RequestPathTarget>;

/** The target's text for a report's target column. */
export function throughputTarget(target: RequestPathTarget, withCpu: boolean): string {
  const parts = [`≥ ${target.minThroughput}× ${target.reference}`];
  if (withCpu) parts.push(`main thread CPU/req ≤ ${target.maxCpu}×`);
  if (target.maxP99Ms !== undefined) parts.push(`p99 ≤ ${target.maxP99Ms} ms`);
  return parts.join(', ');
}

/** Whether a measurement meets the target; `cpuRatio` is left out where it was not measured. */
export function meets(target: RequestPathTarget, m: { throughputRatio: number; p99?: number; cpuRatio?: number }): boolean {
  return (
    m.throughputRatio >= target.minThroughput &&
    (m.cpuRatio === undefined || m.cpuRatio <= target.maxCpu) &&
    (target.maxP99Ms === undefined || m.p99 === undefined || m.p99 <= target.maxP99Ms)
  );
}
