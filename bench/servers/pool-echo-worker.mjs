// The hono-pool reference's task: whoami's answer for a fixed caller, built in the pool thread as the
// bridge's whoami is, the caller's permission names from the pool's workerData (hono-pool.ts). Plain
// JavaScript, so piscina loads it with no loader.
import { workerData } from 'piscina';

const permissions = workerData.permissions;

export default function whoami(task) {
  const caller = task.caller;
  return {
    ok: true,
    value: {
      agent_id: caller.agentId,
      role: caller.role,
      claimed_kingdom_id: caller.claimedKingdomId,
      permissions,
      scenario: caller.scenario,
      partial_intel: caller.partialIntel,
    },
  };
}
