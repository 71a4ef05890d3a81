import { Type } from '@sinclair/typebox';
import type { KingdomInfo } from '../../shared/game-module.ts';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'objective_status',
  category: 'meta',
  description: "Each agent's objectives from agents.json judged against the current world, and every kingdom's units and cities.",
  args: NoArgs,
  result: Type.Object({
    scenario: Type.String(),
    agents: Type.Array(
      Type.Object({
        agent_id: Type.String(),
        role: Type.String(),
        claimed_kingdom_id: Type.Union([Type.Integer(), Type.Null()]),
        objectives: Type.Array(
          Type.Object({
            id: Type.String(),
            label: Type.String(),
            kind: Type.String(),
            target: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
            status: Type.Union([Type.Literal('done'), Type.Literal('pending'), Type.Literal('failed')]),
            progress: Type.Union([Type.Number(), Type.Null()]),
          }),
        ),
      }),
    ),
    kingdoms: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), units: Type.Integer(), cities: Type.Integer(), wild: Type.Boolean() })),
  }),
  permission: { all: ['read_own_faction'] },
  binds: ['listKingdoms'],
  runsOnGameThread: true,
  // The kingdoms come from a frame; the agents and their objectives from the session, which the
  // main loop owns, in the pool step.
  frame: ({ game }) => game.listKingdoms(true),
  pool: (env, kingdoms: KingdomInfo[]) => env.session('objectives', { kingdoms }),
});
