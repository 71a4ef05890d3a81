// decisions §4: a kingdom claim scopes reads only. With partial_intel and without read_all,
// list_cities, query_actors and (decisions §11) get_tile's actors show the claimed kingdom only
// (list_kingdoms and objective_status are not filtered). Nothing is refused: FACTION_SCOPE_VIOLATION is never raised, a request for
// another kingdom simply matches nothing.
import { PERMISSIONS } from '../../auth/permissions.ts';
import type { CallerContext } from '../../shared/caller.ts';

export type ReadScope =
  /** Everything is visible; `kingdomId` is the caller's own filter (or undefined). */
  | { kind: 'all'; kingdomId: number | undefined }
  /** Only this kingdom is visible. */
  | { kind: 'kingdom'; kingdomId: number }
  /** Nothing is visible: no claim, or a filter naming another kingdom than the claim. */
  | { kind: 'none' };

export function readScope(caller: CallerContext, requested: number | undefined): ReadScope {
  const scoped = caller.partialIntel && (caller.permissions & PERMISSIONS.read_all) === 0;
  if (!scoped) return { kind: 'all', kingdomId: requested };
  const claim = caller.claimedKingdomId;
  if (claim === null || (requested !== undefined && requested !== claim)) return { kind: 'none' };
  return { kind: 'kingdom', kingdomId: claim };
}
