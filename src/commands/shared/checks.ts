// Validation shared by the game commands. decisions §3: schemas carry ranges, but asset ids are
// plain strings and coordinates plain integers, so UNKNOWN_ASSET (with did_you_mean) and
// OUT_OF_BOUNDS are raised here, on the game thread, before anything touches the world.
import { Type } from '@sinclair/typebox';
import { outOfBounds, unknownAsset } from '../../errors/bridge-error.ts';
import type { GameModule } from '../../shared/game-module.ts';

export type CatalogueName = 'tiles' | 'tops' | 'actors' | 'powers' | 'speeds';

interface Catalogue {
  ids: readonly string[];
  known: ReadonlySet<string>;
}

/** Power flags by id (supports_radius, is_toggle); both default to false. */
export interface PowerFlags {
  supportsRadius: boolean;
  isToggle: boolean;
}

/**
 * The game's catalogues (tiles, tops, actors, powers, speeds) as the game thread checks ids against
 * them. A game build's catalogue does not change while it runs (ids are "in this game build"), so
 * each list is read from the game once, on first use; the drainer makes one for its game and hands
 * it to every frame step (FrameEnv.catalogues).
 */
export class Catalogues {
  readonly #game: Required<GameModule>;
  readonly #lists = new Map<CatalogueName, Catalogue>();
  #powerFlags: ReadonlyMap<string, PowerFlags> | null = null;

  constructor(game: Required<GameModule>) {
    this.#game = game;
  }

  /** UNKNOWN_ASSET with did_you_mean (the 5 nearest ids of the catalogue) unless `value` is an id of it. */
  check(name: CatalogueName, field: string, value: string): void {
    const { ids, known } = this.#list(name);
    if (!known.has(value)) throw unknownAsset(field, value, ids);
  }

  powerFlags(powerId: string): PowerFlags {
    this.#powerFlags ??= new Map(this.#game.listPowers().map((p) => [p.id, { supportsRadius: p.supports_radius === true, isToggle: p.is_toggle === true }]));
    return this.#powerFlags.get(powerId) ?? { supportsRadius: false, isToggle: false };
  }

  #list(name: CatalogueName): Catalogue {
    let entry = this.#lists.get(name);
    if (!entry) {
      const ids = listIds(this.#game, name).map((item) => item.id);
      entry = { ids, known: new Set(ids) };
      this.#lists.set(name, entry);
    }
    return entry;
  }
}

function listIds(game: Required<GameModule>, name: CatalogueName): Array<{ id: string }> {
  switch (name) {
    case 'tiles':
      return game.listTiles();
    case 'tops':
      return game.listTopTiles();
    case 'actors':
      return game.listActors();
    case 'powers':
      return game.listPowers();
    case 'speeds':
      return game.listSpeeds();
  }
}

/** OUT_OF_BOUNDS unless (x, y) is a tile of the current map (`names` label the fields in the message). */
export function checkPoint(game: Required<GameModule>, x: number, y: number, names: readonly [string, string] = ['x', 'y']): void {
  const { width, height } = game.worldSize();
  if (x < 0 || y < 0 || x >= width || y >= height) {
    throw outOfBounds(`(${names[0]}, ${names[1]}) = (${x}, ${y}) is outside the ${width}x${height} map (x 0..${width - 1}, y 0..${height - 1})`);
  }
}

// Schema pieces shared by several commands. Coordinates carry no bounds on purpose (see above).
export const TileX = (description = 'tile column, 0 at the left edge') => Type.Integer({ description });
export const TileY = (description = 'tile row, 0 at the top edge') => Type.Integer({ description });
