// The one frame in which a generated or loaded world replaces the live one (generate_world,
// load_world). Bumping kWorldEpoch in the same frame is what stops pulsed runs with
// `stopped: "world_changed"` before their next pulse; the clock's world-swap hooks run in it too
// (savepoints of the old world are dropped: decisions §12).
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
  Atomics.add(shared.control, kWorldEpoch, 1);
  clock.worldSwapped();
  const size = game.worldSize?.() ?? { width: snapshot.width, height: snapshot.height };
  return { width: size.width, height: size.height, seed: snapshot.seed };
}
