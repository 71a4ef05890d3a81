import type { MiddlewareHandler } from 'hono';
import type { Counter, Histogram } from 'prom-client';
import type { Env, RequestLog } from '../http/context.ts';

/** Endpoints named in labels; any other path is `other` (a client may put anything in a path). */
const ENDPOINTS = new Set(['/cmd', '/health', '/capabilities', '/events', '/metrics']);
const OTHER = 'other';
const OK = 'OK';

type Child = { inc(): void };
type ObserveChild = { observe(value: number): void };

/**
 * Counts every answer from its log line once the inner handlers are done. Labelled children are
 * kept in maps, so a request costs a lookup and an increment, not prom-client's label hashing.
 * Labels hold what the bridge chose (endpoints, registered command names, codes, agent ids),
 * never what a client sent (decisions §9).
 */
export function createRequestObserver(metrics: {
  requests: Counter<'endpoint' | 'command' | 'code'>;
  duration: Histogram<'command'>;
  admissionWait: Histogram;
  agentRequests: Counter<'agent' | 'code'> | null;
}): MiddlewareHandler<Env> {
  const requestChildren = new Map<string, Child>();
  const durationChildren = new Map<string, ObserveChild>();
  const agentChildren = new Map<string, Child>();

  const countRequest = (endpoint: string, command: string, code: string) => {
    const key = `${endpoint} ${command} ${code}`;
    let child = requestChildren.get(key);
    if (child === undefined) {
      child = metrics.requests.labels(endpoint, command, code);
      requestChildren.set(key, child);
    }
    child.inc();
  };
  const observeDuration = (command: string, seconds: number) => {
    let child = durationChildren.get(command);
    if (child === undefined) {
      child = metrics.duration.labels(command);
      durationChildren.set(command, child);
    }
    child.observe(seconds);
  };
  const countAgent = (agent: string, code: string) => {
    const key = `${agent} ${code}`;
    let child = agentChildren.get(key);
    if (child === undefined) {
      child = metrics.agentRequests!.labels(agent, code);
      agentChildren.set(key, child);
    }
    child.inc();
  };

  return async function observeRequest(c, next) {
    const t0 = performance.now();
    await next();
    const line = c.get('line') as RequestLog | undefined;
    if (line === undefined) return;
    const endpoint = ENDPOINTS.has(line.path) || c.req.path === '/metrics' ? c.req.path : OTHER;
    const command = line.command ?? (endpoint === '/cmd' ? '' : endpoint);
    const code = line.code ?? OK;
    countRequest(endpoint, command, code);
    // A stream's answer is ready at once and lasts as long as the client stays: no latency.
    if (endpoint !== '/events') observeDuration(command, (performance.now() - t0) / 1000);
    if (reachedAdmission(endpoint, line)) metrics.admissionWait.observe(line.admission_wait_ms / 1000);
    if (metrics.agentRequests !== null && line.agent !== null) countAgent(line.agent, code);
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
