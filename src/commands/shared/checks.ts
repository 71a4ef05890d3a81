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

// A game build's catalogue does not change while it runs (ids are "in this game build"), so the id
// lists are built once per game module instead of on every command.
const catalogues = new WeakMap<object, Map<CatalogueName, Catalogue>>();
const powerFlags = new WeakMap<object, ReadonlyMap<string, PowerFlags>>();

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

function catalogue(game: Required<GameModule>, name: CatalogueName): Catalogue {
  let perGame = catalogues.get(game);
  if (!perGame) {
    perGame = new Map();
    catalogues.set(game, perGame);
  }
  let entry = perGame.get(name);
  if (!entry) {
    const ids = listIds(game, name).map((item) => item.id);
    entry = { ids, known: new Set(ids) };
    perGame.set(name, entry);
  }
  return entry;
}

/** UNKNOWN_ASSET with did_you_mean (the 5 nearest ids of the catalogue) unless `value` is an id of it. */
export function checkAsset(game: Required<GameModule>, name: CatalogueName, field: string, value: string): void {
  const { ids, known } = catalogue(game, name);
  if (!known.has(value)) throw unknownAsset(field, value, ids);
}

export function powerFlagsOf(game: Required<GameModule>, powerId: string): PowerFlags {
  let flags = powerFlags.get(game);
  if (!flags) {
    flags = new Map(game.listPowers().map((p) => [p.id, { supportsRadius: p.supports_radius === true, isToggle: p.is_toggle === true }]));
    powerFlags.set(game, flags);
  }
  return flags.get(powerId) ?? { supportsRadius: false, isToggle: false };
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
