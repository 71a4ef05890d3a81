// decisions §4: permission bits and role masks, the one table of both.
import { permissionDeniedFailure, type Failure } from '../errors/failures.ts';
import type { CallerContext } from '../shared/caller.ts';

export const PERMISSIONS = {
  read_all: 1,
  read_own_faction: 2,
  action_global: 4,
  action_faction: 8,
  control_world: 16,
  send_message: 32,
  recv_message: 64,
  send_broadcast: 128,
  advance_time: 256,
} as const;

export type PermissionName = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.values(PERMISSIONS).reduce((mask, bit) => mask | bit, 0);

export const ROLE_MASKS = {
  god: ALL_PERMISSIONS,
  faction_player: PERMISSIONS.read_own_faction | PERMISSIONS.action_faction | PERMISSIONS.send_message | PERMISSIONS.recv_message | PERMISSIONS.advance_time,
  observer: PERMISSIONS.read_all | PERMISSIONS.read_own_faction | PERMISSIONS.send_message | PERMISSIONS.recv_message,
  narrator: PERMISSIONS.read_all | PERMISSIONS.read_own_faction | PERMISSIONS.send_message | PERMISSIONS.recv_message | PERMISSIONS.send_broadcast,
} as const;

export type RoleName = keyof typeof ROLE_MASKS;

export function permissionNames(mask: number): PermissionName[] {
  return (Object.keys(PERMISSIONS) as PermissionName[]).filter((name) => (mask & PERMISSIONS[name]) !== 0);
}

/**
 * What a command needs: every permission of `all`, and at least one of `any` when given
 * (spawn: action_faction or action_global).
 */
export interface PermissionRule {
  all?: PermissionName[];
  any?: PermissionName[];
}

/** The first missing permission, named for the 403 message, or null when the mask satisfies the rule. */
export function missingPermission(rule: PermissionRule, mask: number): string | null {
  for (const name of rule.all ?? []) if ((mask & PERMISSIONS[name]) === 0) return name;
  if (rule.any && rule.any.length > 0 && !rule.any.some((name) => (mask & PERMISSIONS[name]) !== 0)) {
    return rule.any.join(' or ');
  }
  return null;
}

/** spec step 4: the 403 for a caller lacking what command `name` needs, or null. */
export function permissionFailure(name: string, rule: PermissionRule, caller: CallerContext): Failure | null {
  const missing = missingPermission(rule, caller.permissions);
  if (missing === null) return null;
  return permissionDeniedFailure(`agent '${caller.agentId}' (role ${caller.role}) lacks the ${missing} permission that '${name}' needs`);
}
