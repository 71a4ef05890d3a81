// The request path's targets, in one place: `npm run bench` (its main-loop rows) and
// `npm run bench:profile -- --references` judge against these. Each is a ratio to a reference
// measured in the same run, in alternating rounds, so a loaded machine moves both sides together.
//
// The ratio judged is of the process's CPU time per request, every thread counted (the main loop,
// the pool, the game thread, V8's helpers), taken as reference ÷ bridge: higher is better, 1 is
// level. On a shared machine CPU time holds steadier than requests a second (bare hono read 19k to
// 36k requests/s in one afternoon), and on 2 cores the threads beside the main loop take from it.
// Requests a second are reported beside it. Each endpoint has two references: the bare stack, and
// the same stack writing one pino line a request (bench/servers/request-log.ts), the one piece of
// the bridge's own work that every server of the design does.

export interface Reference {
  /** The reference's name in reports. */
  name: string;
  /** Reference ÷ bridge, process CPU per request, at least this; absent: reported, not judged. */
  minCpuRatio?: number;
}

export interface RequestPathTarget {
  /** The bare reference, then the same stack with a pino line a request. */
  references: readonly [Reference, Reference];
  /** The bridge's main-thread CPU per request at most this multiple of the bare reference's. */
  maxMainThreadCpu?: number;
  /** The bridge's main-thread instructions per request (callgrind) at most this multiple of the bare reference's. */
  maxInstructions?: number;
  /** p99 latency at most this, where the endpoint has one. */
  maxP99Ms?: number;
}

export const REQUEST_PATH_TARGETS = {
  // GET /capabilities against hono serving the same bytes with the same headers: the credential
  // check, request id, log line and metrics on top of writing 22 KB.
  capabilities: { references: [{ name: 'bare hono, same bytes', minCpuRatio: 0.9 }, { name: 'bare hono + pino, same bytes' }] },
  // GET /health: credential and Host check, request id, admission slot, log line and metrics on top
  // of bare hono's GET.
  health: {
    references: [
      { name: 'bare hono GET', minCpuRatio: 0.75 },
      { name: 'bare hono + pino GET', minCpuRatio: 0.9 },
    ],
    maxMainThreadCpu: 1.3,
    maxP99Ms: 2,
  },
  // POST whoami (a pool command): the same work plus argument schema and audit record, on top of
  // bare hono handing each POST to a piscina pool set up as the bridge's (the design's floor).
  whoami: {
    references: [
      { name: 'bare hono + piscina', minCpuRatio: 0.75 },
      { name: 'bare hono + piscina + pino', minCpuRatio: 0.9 },
    ],
    maxMainThreadCpu: 1.45,
    maxInstructions: 1.25,
  },
} as const satisfies Record<string, RequestPathTarget>;

/** What a comparison with one reference is judged on: the parts of a target that apply to it. */
export interface Judged {
  minCpuRatio?: number;
  maxMainThreadCpu?: number;
  maxP99Ms?: number;
}

/** The parts of `target` judged against its reference `index` (0: bare; main thread and p99 go with it). */
export function judgedAgainst(target: RequestPathTarget, index: 0 | 1): Judged {
  const minCpuRatio = target.references[index].minCpuRatio;
  return {
    ...(minCpuRatio === undefined ? {} : { minCpuRatio }),
    ...(index === 0 && target.maxMainThreadCpu !== undefined ? { maxMainThreadCpu: target.maxMainThreadCpu } : {}),
    ...(index === 0 && target.maxP99Ms !== undefined ? { maxP99Ms: target.maxP99Ms } : {}),
  };
}

/** The target's text for a report's target column; '' when nothing is judged. */
export function targetText(judged: Judged): string {
  const parts: string[] = [];
  if (judged.minCpuRatio !== undefined) parts.push(`CPU/req ≥ ${judged.minCpuRatio}× (reference ÷ bridge)`);
  if (judged.maxMainThreadCpu !== undefined) parts.push(`main thread CPU/req ≤ ${judged.maxMainThreadCpu}×`);
  if (judged.maxP99Ms !== undefined) parts.push(`p99 ≤ ${judged.maxP99Ms} ms`);
  return parts.join(', ');
}

/**
 * Whether a measurement meets what is judged; undefined when nothing is. `cpuRatio` is reference ÷
 * bridge (process CPU per request), `mainThreadCpu` bridge ÷ reference (main thread's).
 */
export function meets(judged: Judged, m: { cpuRatio: number; mainThreadCpu?: number; p99?: number }): boolean | undefined {
  if (judged.minCpuRatio === undefined && judged.maxMainThreadCpu === undefined && judged.maxP99Ms === undefined) return undefined;
  return (
    (judged.minCpuRatio === undefined || m.cpuRatio >= judged.minCpuRatio) &&
    (judged.maxMainThreadCpu === undefined || m.mainThreadCpu === undefined || m.mainThreadCpu <= judged.maxMainThreadCpu) &&
    (judged.maxP99Ms === undefined || m.p99 === undefined || m.p99 <= judged.maxP99Ms)
  );
}
