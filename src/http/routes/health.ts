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
  let cache = { tick: -1, enabled: -1, agents: -1, json: '' };
  const healthJson = (): string => {
    const tick = Atomics.load(deps.shared.control, kTick);
    const enabled = Atomics.load(deps.shared.control, kEnabled);
    const agents = Atomics.load(deps.shared.control, kAgentCount) * 8 + Atomics.load(deps.shared.control, kScenario);
    if (tick !== cache.tick || enabled !== cache.enabled || agents !== cache.agents) {
      cache = { tick, enabled, agents, json: JSON.stringify(buildHealth(deps.info, deps.shared)) };
    }
    return cache.json;
  };

  const answer = (c: AppContext, permit: Permit | null, t0: number): Response => {
    c.get('line').admission_wait_ms = round(performance.now() - t0);
    if (permit === null) return fail(c, deps.admission.refusal(), 'health', {});
    try {
      return send(c, 200, healthJson());
    } finally {
      permit.release();
    }
  };

  return new Hono<Env>().get('/health', (c): Response | Promise<Response> => {
    const t0 = performance.now();
    const admitted = deps.admission.acquire(() => c.req.raw.signal, c.get('caller').agentId);
    // A free slot is granted synchronously: answer in the same turn, without a promise.
    if (!(admitted instanceof Promise)) return answer(c, admitted, t0);
    return admitted.then((permit) => answer(c, permit, t0));
  });
}
