// The hono-pool reference's task: whoami's answer for a fixed caller, built in the pool thread as the
// bridge's whoami is. Plain JavaScript, so piscina loads it with no loader.
export default function whoami(task) {
  const caller = task.caller;
  return {
    ok: true,
    value: {
      agent_id: caller.agentId,
      role: caller.role,
      claimed_kingdom_id: caller.claimedKingdomId,
      permissions: ['read_all'],
      scenario: caller.scenario,
      partial_intel: caller.partialIntel,
    },
  };
}
