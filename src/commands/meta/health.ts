import { Type, type Static } from '@sinclair/typebox';
import { kAgentCount, kEnabled, kScenario, kTick, type SharedState } from '../../shared/layout.ts';
import { SCENARIOS } from '../../shared/scenarios.ts';
import type { BridgeInfo } from '../../shared/protocol.ts';
import { defineCommand, NoArgs } from '../define.ts';

export const HealthObject = Type.Object({
  ok: Type.Literal(true),
  mod_version: Type.String(),
  game_version: Type.String(),
  engine_version: Type.String(),
  game_assembly_sha256: Type.String(),
  tick: Type.Integer(),
  enabled: Type.Boolean(),
  multi_agent: Type.Boolean(),
  scenario: Type.String(),
  agent_count: Type.Integer(),
  /** decisions §12: which clock moves the world (additive to the spec's object). */
  clock: Type.Union([Type.Literal('realtime'), Type.Literal('lockstep')]),
});
export type HealthObject = Static<typeof HealthObject>;

/** The health object from shared memory alone: no frame is awaited (GET /health and the command). */
export function buildHealth(info: BridgeInfo, shared: SharedState): HealthObject {
  return {
    ok: true,
    mod_version: info.modVersion,
    game_version: info.gameVersion,
    engine_version: info.engineVersion,
    game_assembly_sha256: info.gameAssemblySha256,
    tick: Atomics.load(shared.control, kTick),
    enabled: Atomics.load(shared.control, kEnabled) === 1,
    multi_agent: info.multiAgent,
    // decisions §10: an agents.json reload may change both; the main loop mirrors them (0: not yet).
    scenario: SCENARIOS[Atomics.load(shared.control, kScenario)] ?? info.scenario,
    agent_count: Atomics.load(shared.control, kAgentCount) || info.agentCount,
    clock: info.clock,
  };
}

export default defineCommand({
  name: 'health',
  category: 'meta',
  description: 'Bridge and game versions, the current tick, the kill switch and the session mode.',
  args: NoArgs,
  result: HealthObject,
  permission: {},
  binds: [],
  runsOnGameThread: false,
  pool: (env) => buildHealth(env.info, env.shared),
});
