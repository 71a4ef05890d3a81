import { Hono } from 'hono';
import type { Admission, Permit } from '../../admission/semaphore.ts';
import { buildHealth } from '../../commands/meta/health.ts';
import { kAgentCount, kEnabled, kScenario, kTick, type SharedState } from '../../shared/layout.ts';
import type { BridgeInfo } from '../../shared/protocol.ts';
import { round, type AppContext, type Env } from '../context.ts';
import { fail, send } from '../respond.ts';

export interface HealthDeps {
  admission: Admission;
  shared: SharedState;
  info: BridgeInfo;
}

/** spec: GET /health is gated by the admission limit like a command; decisions §5: the health object itself. */
export function healthRoutes(deps: HealthDeps): Hono<Env> {
  // The health object changes only with the tick, the kill switch or an agents.json reload
  // (decisions §10: agent count, scenario): serialise it once per change.
  // The check reads the cells plainly: an aligned 32-bit cell is never torn, and a value a moment
  // old only defers the new answer to the next request, which buildHealth reads atomically. Four
  // Atomics.load calls were 400 instructions of a /health's 82 k.
  const control = deps.shared.control;
  let cache = { tick: -1, enabled: -1, agents: -1, json: '' };
  const healthJson = (): string => {
    const tick = control[kTick]!;
    const enabled = control[kEnabled]!;
    const agents = control[kAgentCount]! * 8 + control[kScenario]!;
    if (tick !== cache.tick || enabled !== cache.enabled || agents !== cache.agents) {
      cache = { tick, enabled, agents, json: JSON.stringify(buildHealth(deps.info, deps.shared)) };
    }
    return cache.json;
  };

  const answer = (c: AppContext, permit: Permit | null): Response => {
    if (permit === null) return fail(c, deps.admission.refusal(), 'health', {});
    try {
      return send(c, 200, healthJson());
    } finally {
      permit.release();
    }
  };

  return new Hono<Env>().get('/health', (c): Response | Promise<Response> => {
    // c.req.raw: its signal is built only if the request has to wait.
    const admitted = deps.admission.acquire(c.req.raw, c.get('caller').agentId);
    // A free slot is granted synchronously: answer in the same turn, without a promise, and with
    // no wait to time (admission_wait_ms stays 0).
    if (!(admitted instanceof Promise)) return answer(c, admitted);
    const t0 = performance.now();
    return admitted.then((permit) => {
      c.get('line').admission_wait_ms = round(performance.now() - t0);
      return answer(c, permit);
    });
  });
}
