// God powers: one pulse at (x, y). Strikes hurt creatures and scar the land, weather and status
// powers change tiles and bodies, terrain brushes reshape the map, laws are world-wide switches.
import {
  ACTOR_FIREPROOF,
  ACTOR_INDEX,
  ACTOR_KIND,
  ACTOR_KIND_MONSTER,
  canStand,
  POWER_INDEX,
  POWERS,
  T,
  TILE_WATER,
  TILES,
  TOP,
  TOP_VEGETATION,
  type PowerAsset,
} from './assets.ts';
import { killActor } from './actors.ts';
import { reportDeath, type KingdomSet } from './events.ts';
import { endAllWars, placeActor } from './kingdoms.ts';
import { nextFloat, nextU32 } from './rng.ts';
import { PLAGUE_TICKS, rainOn } from './simulation.ts';
import { forDisc, ignite, inBounds, setTileType, setTop, type LawId, type World } from './world.ts';

export const MAX_POWER_RADIUS = 50;
const BLESSING_TICKS = 600;

export function powerAsset(id: string): PowerAsset | undefined {
  const index = POWER_INDEX.get(id);
  return index === undefined ? undefined : POWERS[index];
}

/** The radius a pulse uses: the caller's for a brush (clamped), the power's own otherwise. */
export function effectiveRadius(power: PowerAsset, radius: number | null): number {
  if (!power.supportsRadius || radius === null || !Number.isFinite(radius)) return power.radius;
  return Math.max(0, Math.min(MAX_POWER_RADIUS, Math.floor(radius)));
}

/** Strikes that also set a ring of fire two tiles beyond their radius. */
const RING_OF_FIRE = new Set(['meteorite', 'bomb', 'atomic_bomb']);

/**
 * One pulse of `power` centred on tile (x, y). Returns false when the world refuses it (a creature
 * that cannot live on that tile, a full world); the caller checked the id and the coordinates.
 * `touched` (events only) collects the kingdoms whose actors or cities the pulse reaches, looked at
 * before it changes anything (a flood takes the land away from its city); a law touches none.
 */
export function applyPower(w: World, power: PowerAsset, x: number, y: number, radius: number | null, touched?: KingdomSet): boolean {
  if (!inBounds(w, x, y)) return false;
  const r = effectiveRadius(power, radius);
  if (power.isToggle) return flipLaw(w, power.id as LawId);
  if (power.actor !== undefined) return spawnPower(w, power.actor, x, y, touched);
  if (touched) {
    const reach = RING_OF_FIRE.has(power.id) ? r + 2 : r;
    touched.addDisc(w, x, y, reach);
    touched.addActorsNear(w, x, y, reach + 0.5);
  }
  switch (power.id) {
    case 'lightning':
      hurtDisc(w, power, x, y, r, 90, 200);
      forDisc(w, x, y, r, (i, _x, _y, d2) => {
        if (d2 === 0 || (nextU32(w.rng) & 3) === 0) ignite(w, i, 30);
      });
      return true;
    case 'meteorite':
      hurtDisc(w, power, x, y, r, 100_000, 100_000);
      forDisc(w, x, y, r, (i, _x, _y, d2) => {
        scorch(w, i);
        if (d2 <= 2) setTileType(w, i, T.lava);
        else if (TILE_WATER[w.tileType[i]!] === 0 && w.tileType[i] !== T.lava) setTileType(w, i, T.ash);
        w.elevation[i] = Math.max(0, w.elevation[i]! - 30);
      });
      igniteRing(w, x, y, r + 2);
      return true;
    case 'bomb':
    case 'atomic_bomb':
      hurtDisc(w, power, x, y, r, power.id === 'bomb' ? 300 : 2500, power.id === 'bomb' ? 600 : 5000);
      forDisc(w, x, y, r, (i) => {
        scorch(w, i);
        const type = w.tileType[i]!;
        if (TILE_WATER[type] === 0 && type !== T.lava && type !== T.mountains && type !== T.snow) setTileType(w, i, T.ash);
      });
      igniteRing(w, x, y, r + 2);
      return true;
    case 'fire':
      hurtDisc(w, power, x, y, r, 25, 25, true);
      forDisc(w, x, y, r, (i) => {
        ignite(w, i, 40 + (nextU32(w.rng) & 15));
      });
      return true;
    case 'earthquake':
      hurtDisc(w, power, x, y, r, 15, 15);
      forDisc(w, x, y, r, (i) => {
        const roll = nextU32(w.rng);
        if ((roll & 3) !== 0) return;
        const shift = ((roll >>> 2) % 25) - 12;
        w.elevation[i] = Math.max(0, Math.min(255, w.elevation[i]! + shift));
        const type = w.tileType[i]!;
        if (type === T.mountains && (roll & 16) === 0) setTileType(w, i, T.hills);
        else if (type === T.hills && (roll & 48) === 0) setTileType(w, i, T.soilLow);
        const top = w.topType[i]!;
        if (top === TOP.house && (roll & 64) === 0) setTop(w, i, TOP.ruins);
        else if (TOP_VEGETATION[top] === 1 && (roll & 192) === 0) setTop(w, i, 0);
      });
      return true;
    case 'rain':
      forDisc(w, x, y, r, (i) => rainOn(w, i, 6));
      return true;
    case 'blessing':
      forActorsInDisc(w, x, y, r, (actor) => {
        w.a.blessed[actor] = BLESSING_TICKS;
        w.a.plague[actor] = 0;
        w.a.hp[actor] = w.a.maxHp[actor]!;
      });
      return true;
    case 'plague':
      forActorsInDisc(w, x, y, r, (actor) => {
        if (ACTOR_KIND[w.a.asset[actor]!] !== ACTOR_KIND_MONSTER) w.a.plague[actor] = PLAGUE_TICKS;
      });
      return true;
    case 'water_bucket':
      forDisc(w, x, y, r, (i) => {
        if (TILE_WATER[w.tileType[i]!] === 1) return;
        setTileType(w, i, T.shallow);
        w.elevation[i] = TILES[T.shallow]!.paintElevation;
      });
      return true;
    case 'lava_bucket':
      forDisc(w, x, y, r, (i) => {
        if (TILE_WATER[w.tileType[i]!] === 1) return;
        scorch(w, i);
        setTileType(w, i, T.lava);
      });
      return true;
    case 'fertilizer':
      forDisc(w, x, y, r, (i) => {
        const type = w.tileType[i]!;
        if (type === T.soilLow || type === T.soilHigh || type === T.ash) setTileType(w, i, T.grass);
      });
      return true;
    case 'plant_forest':
      forDisc(w, x, y, r, (i) => {
        const type = w.tileType[i]!;
        if (type !== T.grass && type !== T.soilHigh && type !== T.forest) return;
        setTileType(w, i, T.forest);
        if (w.topType[i] === 0) setTop(w, i, (nextU32(w.rng) & 1) === 0 ? TOP.oak : TOP.pine);
      });
      return true;
    case 'raise_land':
    case 'lower_land': {
      const up = power.id === 'raise_land';
      forDisc(w, x, y, r, (i) => reshape(w, i, up));
      return true;
    }
    default:
      return false;
  }
}

function spawnPower(w: World, actorId: string, x: number, y: number, touched?: KingdomSet): boolean {
  const asset = ACTOR_INDEX.get(actorId);
  if (asset === undefined || !canStand(asset, w.tileType[y * w.width + x]!)) return false;
  const actor = placeActor(w, asset, x + 0.2 + 0.6 * nextFloat(w.rng), y + 0.2 + 0.6 * nextFloat(w.rng), true);
  if (actor < 0) return false;
  if (touched) {
    touched.addActor(w, actor);
    touched.addTile(w, y * w.width + x);
  }
  return true;
}

function flipLaw(w: World, law: LawId): boolean {
  if (!(law in w.laws)) return false;
  w.laws[law] = !w.laws[law];
  if (law === 'world_peace' && w.laws.world_peace) endAllWars(w);
  return true;
}

/** Calls `visit` for every live actor within radius + 0.5 of the centre of tile (x, y). */
export function forActorsInDisc(w: World, x: number, y: number, radius: number, visit: (actor: number, d2: number) => void): void {
  const a = w.a;
  const cx = x + 0.5;
  const cy = y + 0.5;
  const reach = (radius + 0.5) * (radius + 0.5);
  const end = w.actorEnd;
  for (let i = 0; i < end; i++) {
    if (a.alive[i] !== 1) continue;
    const dx = a.x[i]! - cx;
    const dy = a.y[i]! - cy;
    const d2 = dx * dx + dy * dy;
    if (d2 <= reach) visit(i, d2);
  }
}

/** Damages actors in the disc (`centre` damage within one tile of the centre); kills at 0 hp. */
function hurtDisc(w: World, power: PowerAsset, x: number, y: number, radius: number, damage: number, centre: number, fire = false): void {
  forActorsInDisc(w, x, y, radius, (actor, d2) => {
    if (fire && ACTOR_FIREPROOF[w.a.asset[actor]!] === 1) return;
    const hp = w.a.hp[actor]! - (d2 <= 1 ? centre : damage);
    if (hp <= 0) {
      reportDeath(w, actor, 'power', power.id);
      killActor(w, actor);
    } else w.a.hp[actor] = hp;
  });
}

/** What a blast leaves of a tile's top: houses fall to ruins, plants burn away. */
function scorch(w: World, i: number): void {
  const top = w.topType[i]!;
  if (top === TOP.house) setTop(w, i, TOP.ruins);
  else if (TOP_VEGETATION[top] === 1 || top === TOP.snowCover) setTop(w, i, 0);
}

function igniteRing(w: World, x: number, y: number, radius: number): void {
  forDisc(w, x, y, radius, (i) => {
    if ((nextU32(w.rng) & 1) === 0) ignite(w, i, 30);
  });
}

const RAISE: Record<number, number> = {
  [T.deepOcean]: T.shallow,
  [T.shallow]: T.sand,
  [T.sand]: T.soilLow,
  [T.soilLow]: T.hills,
  [T.soilHigh]: T.hills,
  [T.grass]: T.hills,
  [T.forest]: T.hills,
  [T.ash]: T.hills,
  [T.hills]: T.mountains,
  [T.mountains]: T.snow,
};
const LOWER: Record<number, number> = {
  [T.snow]: T.mountains,
  [T.mountains]: T.hills,
  [T.hills]: T.soilLow,
  [T.soilLow]: T.sand,
  [T.soilHigh]: T.sand,
  [T.grass]: T.sand,
  [T.forest]: T.sand,
  [T.ash]: T.sand,
  [T.lava]: T.hills,
  [T.sand]: T.shallow,
  [T.shallow]: T.deepOcean,
};

function reshape(w: World, i: number, up: boolean): void {
  const next = (up ? RAISE : LOWER)[w.tileType[i]!];
  if (next === undefined) return;
  setTileType(w, i, next);
  w.elevation[i] = TILES[next]!.paintElevation;
}
