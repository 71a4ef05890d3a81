// The one frame in which a generated or loaded world replaces the live one (generate_world,
// load_world). Leaving the timeline in the same frame (kWorldEpoch) is what stops pulsed runs with
// `stopped: "world_changed"` before their next pulse; the clock's world-swap hooks run in it too
// (savepoints of the old world are dropped: decisions §12). A rewind leaves its timeline the same
// way (decisions §15) but keeps the world's savepoints and record.
import type { WorldClock } from '../../shared/frame.ts';
import type { GameModule, WorldSnapshot } from '../../shared/game-module.ts';
import { kWorldEpoch, type SharedState } from '../../shared/layout.ts';

export interface InstalledWorld {
  width: number;
  height: number;
  seed: number;
}

export function installWorld(
  { game, shared, clock }: { game: Required<GameModule>; shared: SharedState; clock: Pick<WorldClock, 'worldSwapped'> },
  snapshot: WorldSnapshot,
): InstalledWorld {
  try {
    game.installWorld(snapshot);
  } catch (err) {
    // A refused snapshot leaves the old world live; it must not stay marked as loading.
    game.setWorldLoading?.(false);
    throw err;
  }
  leaveTimeline(shared);
  clock.worldSwapped();
  const size = game.worldSize?.() ?? { width: snapshot.width, height: snapshot.height };
  return { width: size.width, height: size.height, seed: snapshot.seed };
}

/**
 * The world no longer goes on from where it was (a swap, a rewind): every pulsed run in flight ends
 * with `world_changed` before its next pulse, so nothing of the abandoned timeline reaches the world.
 */
export function leaveTimeline(shared: SharedState): void {
  Atomics.add(shared.control, kWorldEpoch, 1);
}
