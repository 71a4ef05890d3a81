// The spawn command: `count` actors of one asset around a tile.
import { ACTORS, canStand, TILES } from './assets.ts';
import { nameOf } from './actors.ts';
import type { KingdomSet } from './events.ts';
import { placeActor } from './kingdoms.ts';
import { nextFloat, nextInt } from './rng.ts';
import type { World } from './world.ts';
import type { SpawnOutcome } from '../shared/game-module.ts';

export type SpawnResult = SpawnOutcome;

export class SpawnRefused extends Error {}

/**
 * The first actor lands on (x, y), the others on tiles around it (a wider ring for a bigger count).
 * A tile the creature cannot live on refuses the whole call when it is the centre, and counts as one
 * failure otherwise; so does a full world. `touched` (events only) collects the kingdoms of the new
 * actors and of the cities whose land they landed on.
 */
export function spawnActors(w: World, asset: number, x: number, y: number, count: number, adult: boolean, touched?: KingdomSet): SpawnResult {
  const info = ACTORS[asset]!;
  const centre = w.tileType[y * w.width + x]!;
  if (!canStand(asset, centre)) {
    const where = TILES[centre]!.id;
    throw new SpawnRefused(
      info.habitat === 'water'
        ? `${info.id} lives in water and cannot be spawned on ${where} at (${x}, ${y})`
        : `${info.id} is a land creature and cannot be spawned on ${where} at (${x}, ${y})`,
    );
  }
  const spread = Math.ceil(Math.sqrt(count) / 2);
  const names: string[] = [];
  let failed = 0;
  for (let n = 0; n < count; n++) {
    const tx = n === 0 ? x : x + nextInt(w.rng, 2 * spread + 1) - spread;
    const ty = n === 0 ? y : y + nextInt(w.rng, 2 * spread + 1) - spread;
    if (tx < 0 || ty < 0 || tx >= w.width || ty >= w.height || !canStand(asset, w.tileType[ty * w.width + tx]!)) {
      failed++;
      continue;
    }
    const actor = placeActor(w, asset, tx + 0.2 + 0.6 * nextFloat(w.rng), ty + 0.2 + 0.6 * nextFloat(w.rng), adult);
    if (actor < 0) {
      failed++;
      continue;
    }
    names.push(nameOf(w, actor));
    if (touched) {
      touched.addActor(w, actor);
      touched.addTile(w, ty * w.width + tx);
    }
  }
  if (names.length === 0) throw new SpawnRefused(`the world is full: no room for another ${info.id}`);
  return { spawned: names.length, failed, names };
}
