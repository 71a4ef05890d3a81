import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'session_info',
  category: 'meta',
  description: 'The session: scenario, fog, turn order and current turn, and every agent with its claim and when it was last seen.',
  args: NoArgs,
  result: Type.Object({
    scenario: Type.String(),
    partial_intel: Type.Boolean(),
    turn_based: Type.Boolean(),
    legacy_mode: Type.Boolean(),
    agent_count: Type.Integer(),
    agents: Type.Array(
      Type.Object({
        id: Type.String(),
        role: Type.String(),
        claimed_kingdom_id: Type.Union([Type.Integer(), Type.Null()]),
        last_seen_utc: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    turn_order: Type.Array(Type.String()),
    current_turn: Type.Union([Type.String(), Type.Null()]),
  }),
  permission: {},
  binds: [],
  runsOnGameThread: false,
  pool: (env) => env.session('info'),
});
