// decisions §7: who sees which event. One rule, used by GET /events and recv_events alike, always
// against the caller context the subscriber has now (claims follow the world).
import { PERMISSIONS } from '../auth/permissions.ts';
import type { CallerContext } from '../shared/caller.ts';

/**
 * An event whose audience is not the fog rule: `message` (its sender and recipients only),
 * `command` (read_all holders and the agent that sent it), agents_reloaded / agents_reload_failed
 * (read_all holders only).
 */
export interface Restriction {
  /** Agents that see it whatever their permissions. */
  agents: readonly string[];
  /** read_all holders see it too. */
  readAll: boolean;
}

export interface Audienced {
  readonly kingdomIds: readonly number[];
  readonly restrict: Restriction | null;
}

/**
 * read_all (legacy token, god, observer, narrator) sees everything but other agents' messages.
 * Without read_all, under partial_intel, a caller sees global events (no kingdom named) and those
 * naming its claimed kingdom; without partial_intel, everything.
 */
export function canSee(caller: CallerContext, event: Audienced): boolean {
  const readAll = (caller.permissions & PERMISSIONS.read_all) !== 0;
  const restrict = event.restrict;
  if (restrict !== null) return (restrict.readAll && readAll) || restrict.agents.includes(caller.agentId);
  if (readAll || !caller.partialIntel) return true;
  const ids = event.kingdomIds;
  if (ids.length === 0) return true;
  return caller.claimedKingdomId !== null && ids.includes(caller.claimedKingdomId);
}

/**
 * The claim whose fog form `caller` gets of `event`, or null for the event as it is. A caller
 * under fog (no read_all, partial_intel, a claim) that sees an event naming other kingdoms beside
 * its own gets it narrowed to its own (docs/events.md, "The fog form"): the list names its kingdom
 * alone, and the fields the game declares as telling of the others (eventFog) are cut.
 */
export function fogClaim(caller: CallerContext, event: Audienced): number | null {
  if (event.restrict !== null || event.kingdomIds.length < 2) return null;
  if ((caller.permissions & PERMISSIONS.read_all) !== 0 || !caller.partialIntel) return null;
  return caller.claimedKingdomId;
}

export const READ_ALL_ONLY: Restriction = Object.freeze({ agents: Object.freeze([]) as readonly string[], readAll: true });
