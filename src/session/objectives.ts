import type { ObjectiveSpec } from '../config/agents.ts';
import type { KingdomInfo } from '../shared/game-module.ts';

export interface ObjectiveStatus {
  id: string;
  label: string;
  kind: string;
  target: string | number | null;
  status: 'done' | 'pending' | 'failed';
  progress: number | null;
}

/**
 * Objectives of agents.json, judged against the kingdoms of the current world:
 * wipe_kingdom (target claim gone or without units), survive (own kingdom has units),
 * reach_units / reach_cities (own kingdom reaches the target number).
 */
export function evaluateObjectives(
  specs: readonly ObjectiveSpec[],
  ownKingdomId: number | null,
  kingdoms: readonly KingdomInfo[],
  resolveClaim: (claim: string) => number | null,
): ObjectiveStatus[] {
  // Looked up by null too (no claim, no target): no kingdom has that id.
  const byId = new Map<number | null, KingdomInfo>(kingdoms.map((k) => [k.id, k]));
  const own = byId.get(ownKingdomId);
  return specs.map((spec) => {
    const base = { id: spec.id, label: spec.label ?? spec.id, kind: spec.kind, target: spec.target ?? null };
    switch (spec.kind) {
      case 'wipe_kingdom': {
        const targetId = typeof spec.target === 'string' ? resolveClaim(spec.target) : (spec.target ?? null);
        const target = byId.get(targetId);
        const left = target?.units_count ?? 0;
        return { ...base, status: left === 0 ? 'done' : 'pending', progress: left };
      }
      case 'survive': {
        const units = own?.units_count ?? 0;
        return { ...base, status: units > 0 ? 'pending' : 'failed', progress: units };
      }
      case 'reach_units':
      case 'reach_cities': {
        const value = spec.kind === 'reach_units' ? (own?.units_count ?? 0) : (own?.cities_count ?? 0);
        const goal = typeof spec.target === 'number' ? spec.target : 0;
        return { ...base, status: value >= goal ? 'done' : 'pending', progress: value };
      }
      default:
        throw new Error(`unknown objective kind ${String(spec.kind satisfies never)}`);
    }
  });
}
