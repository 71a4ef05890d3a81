// The caller context the event-layer unit tests hand to the hub and the fog: a role's permissions,
// an optional claimed kingdom, partial intel on unless asked otherwise.
import { ALL_PERMISSIONS, ROLE_MASKS } from '../../src/auth/permissions.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

export function caller(agentId: string, role: 'god' | 'observer' | 'faction_player', claim: number | null, partialIntel = true): CallerContext {
  return {
    agentId,
    agentIndex: 0,
    role,
    permissions: role === 'god' ? ALL_PERMISSIONS : ROLE_MASKS[role],
    claimedKingdomId: claim,
    scenario: 'pvp',
    partialIntel,
    turnBased: false,
    legacyMode: false,
  };
}
