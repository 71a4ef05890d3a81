import { corePath, type RequestLog } from '../http/context.ts';
import { BucketHistogram, type Series } from './shared-histogram.ts';

const OTHER = 'other';

/** Endpoints named in labels; any other path is `other` (a client may put anything in a path). */
function endpointOf(path: string): string {
  return corePath(path) ?? (path === '/metrics' ? '/metrics' : OTHER);
}
const OK = 'OK';

interface Row {
  labels: Record<string, string>;
  value: number;
}

/**
 * Counts by label set, kept as plain numbers in nested maps (one level per label, so no key string
 * is built per request); a scrape hands them to prom-client (index.ts).
 */
export class CountTable {
  readonly rows: Row[] = [];
  readonly #tree = new Map<string, Map<string, Row | Map<string, Row>>>();

  /** Two labels (`a`, `b`) or three (`c` given). */
  inc(names: readonly string[], a: string, b: string, c?: string): void {
    let level = this.#tree.get(a);
    if (level === undefined) this.#tree.set(a, (level = new Map()));
    let entry = level.get(b);
    if (c === undefined) {
      if (entry === undefined) level.set(b, this.#row(names, [a, b]));
      else (entry as Row).value++;
      return;
    }
    if (entry === undefined) level.set(b, (entry = new Map<string, Row>()));
    const leaf = entry as Map<string, Row>;
    const row = leaf.get(c);
    if (row === undefined) leaf.set(c, this.#row(names, [a, b, c]));
    else row.value++;
  }

  #row(names: readonly string[], values: string[]): Row {
    const row: Row = { labels: Object.fromEntries(names.map((name, i) => [name, values[i]!])), value: 1 };
    this.rows.push(row);
    return row;
  }
}

const REQUEST_LABELS = ['endpoint', 'command', 'code'] as const;
const AGENT_LABELS = ['agent', 'code'] as const;

/** What the credential check tells of each answer (src/http/authenticate.ts). */
export type RequestObserver = (line: RequestLog, path: string, seconds: number) => void;

/**
 * Counts every answer from its log line once it is complete. The hot path is a map
 * lookup and a few additions per series: prom-client's own inc/observe hash their labels on every
 * call, which cost /health several per cent of its throughput. Labels hold what the bridge chose
 * (endpoints, registered command names, codes, agent ids), never what a client sent (decisions §9).
 */
export function createRequestObserver(metrics: {
  requests: CountTable;
  duration: BucketHistogram;
  admissionWait: Series;
  agentRequests: CountTable | null;
}): RequestObserver {
  const durations = new Map<string, Series>();
  const durationOf = (command: string) => {
    let series = durations.get(command);
    if (series === undefined) {
      series = metrics.duration.child(command, { command });
      durations.set(command, series);
    }
    return series;
  };

  return function observeRequest(line, path, seconds) {
    const endpoint = endpointOf(path);
    const command = line.command ?? (endpoint === '/cmd' ? '' : endpoint);
    const code = line.code ?? OK;
    metrics.requests.inc(REQUEST_LABELS, endpoint, command, code);
    // A stream's answer is ready at once and lasts as long as the client stays: no latency.
    if (endpoint !== '/events') BucketHistogram.record(durationOf(command), seconds);
    if (reachedAdmission(endpoint, line)) BucketHistogram.record(metrics.admissionWait, line.admission_wait_ms / 1000);
    const agent = line.agent;
    if (metrics.agentRequests !== null && agent !== null) metrics.agentRequests.inc(AGENT_LABELS, agent, code);
  };
}

/**
 * decisions §5: GET /health and POST /cmd take a slot after the name and args checks; what failed
 * before it (401, DISABLED, a bad body, an unknown name, bad args) never waited for one.
 */
function reachedAdmission(endpoint: string, line: RequestLog): boolean {
  if (endpoint === '/health') return true;
  if (endpoint !== '/cmd' || line.command === null) return false;
  return !(line.code === 'BAD_ARGS' && line.admission_wait_ms === 0 && line.run_ms === 0);
}
