import { Type } from '@sinclair/typebox';
import { permissionNames } from '../../auth/permissions.ts';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'whoami',
  category: 'meta',
  description: 'The calling agent: id, role, claimed kingdom, permissions and scenario.',
  args: NoArgs,
  result: Type.Object({
    agent_id: Type.String(),
    role: Type.String(),
    claimed_kingdom_id: Type.Union([Type.Integer(), Type.Null()]),
    permissions: Type.Array(Type.String()),
    scenario: Type.String(),
    partial_intel: Type.Boolean(),
  }),
  permission: {},
  binds: [],
  runsOnGameThread: false,
  pool: ({ caller }) => ({
    agent_id: caller.agentId,
    role: caller.role,
    claimed_kingdom_id: caller.claimedKingdomId,
    permissions: permissionNames(caller.permissions),
    scenario: caller.scenario,
    partial_intel: caller.partialIntel,
  }),
});
