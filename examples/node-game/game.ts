// A small Node-hosted game that drives its own frames: a 64×64 field of wandering sheep around a
// pond. It shows the halves of embedding (docs/game-module.md):
// - the world functions commands bind to: worldSize + getTile turn on get_tile, listActors + spawn
//   + worldSize turn on spawn, and so on; what it does not export (tiles to paint, powers, saves)
//   stays disabled, and /capabilities says why under disabled_commands;
// - what a game may leave out: no kingdoms, cities, heights, top tiles or races, so those fields are
//   simply absent from its answers;
// - `run(host)`, the game's own loop, which calls host.drainFrame() once per frame so queued
//   bridge actions run between its updates;
// - research mode: advance(ticks) runs ticks on demand whatever the pause, stateHash() digests the
//   whole state, snapshot()/restore() keep and put back a savepoint. Every random draw comes from one
//   seeded generator whose state is part of the world, so one seed and one sequence of commands give
//   the same hash at every tick.
// Game code imports from the light entry `game-control-bridge/game`: no server code is loaded.
import { createHash } from 'node:crypto';
import { badArgs, gameRejected } from 'game-control-bridge/game';
import type { ActorQuery, ActorRow, AssetInfo, GameHost, GameInitOptions, SpawnOutcome, TileReport, UiState, WorldState } from 'game-control-bridge/game';

export const version = 'sheep-field-1.0.0';
/** The kinds of event this game emits (docs/events.md); GET /capabilities lists them in event_kinds. */
export const eventKinds = ['sheep_at_fence'];

export const WIDTH = 64;
export const HEIGHT = 64;
/** The pond: water tiles within `radius` of the centre. Sheep never stand in it. */
export const POND = { x: 40, y: 24, radius: 6 } as const;
const START_SHEEP = 20;

interface Sheep {
  /** 1, 2, 3... in order of birth; the name is made from it. */
  id: number;
  name: string;
  x: number;
  y: number;
  /** Ticks lived; a lamb becomes a ewe at ADULT_AGE. */
  age: number;
}
const ADULT_AGE = 600;

let tick = 0;
let paused = false;
let seed = 1;
/** The generator's state: part of the world (a savepoint keeps it), unlike the seed it started from. */
let rng = 1;
let born = 0;
let sheep: Sheep[] = [];
let host: GameHost | null = null;

function random(): number {
  // xorshift32: deterministic from the seed
  rng ^= rng << 13;
  rng ^= rng >>> 17;
  rng ^= rng << 5;
  return (rng >>> 0) / 4294967296;
}

function isWater(x: number, y: number): boolean {
  return (x - POND.x) ** 2 + (y - POND.y) ** 2 <= POND.radius ** 2;
}

function onMap(x: number, y: number): boolean {
  return x >= 0 && y >= 0 && x < WIDTH && y < HEIGHT;
}

function addSheep(x: number, y: number, adult: boolean): Sheep {
  born++;
  const one = { id: born, name: `Sheep ${born}`, x, y, age: adult ? ADULT_AGE : 0 };
  sheep.push(one);
  return one;
}

// --- Frames (required) --------------------------------------------------------------------------

export function init(options: GameInitOptions, gameHost: GameHost): void {
  host = gameHost;
  seed = options.seed || 1;
  rng = seed;
  tick = 0;
  born = 0;
  sheep = [];
  while (sheep.length < START_SHEEP) {
    const x = Math.floor(random() * WIDTH);
    const y = Math.floor(random() * HEIGHT);
    if (!isWater(x, y)) addSheep(x, y, true);
  }
}

export function update(): void {
  if (!paused) step();
}

/** One tick: every sheep ages and may wander one tile. */
function step(): void {
  tick++;
  for (const s of sheep) {
    s.age++;
    const x = Math.min(WIDTH - 1, Math.max(0, s.x + Math.round(random() * 2 - 1)));
    const y = Math.min(HEIGHT - 1, Math.max(0, s.y + Math.round(random() * 2 - 1)));
    if (isWater(x, y)) continue;
    const atFence = x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1;
    const wasAtFence = s.x === 0 || s.y === 0 || s.x === WIDTH - 1 || s.y === HEIGHT - 1;
    s.x = x;
    s.y = y;
    // A global event (no kingdom named): every subscriber may see it.
    if (atFence && !wasAtFence) host?.emit('sheep_at_fence', { sheep: s.name, x, y });
  }
}

export function currentTick(): number {
  return tick;
}

/** The game's own loop at 30 fps; the bridge runs no frame loop when a game exports run(). */
export async function run(host: GameHost): Promise<void> {
  const timer = setInterval(() => {
    update();
    host.drainFrame();
  }, 1000 / 30);
  await host.stopped;
  clearInterval(timer);
}

// --- Research mode: ticks on demand, a state hash, savepoints ---------------------------------

/** Runs exactly `ticks` ticks now, whatever the pause: a research client steps the world itself. */
export function advance(ticks: number): void {
  if (!Number.isInteger(ticks) || ticks < 0) throw badArgs(`ticks must be a whole number, 0 or more; got ${String(ticks)}`);
  for (let n = 0; n < ticks; n++) step();
}

/**
 * 16 hex digits of SHA-256 over the state in a fixed layout: integers written little-endian, sheep in
 * their array order (the order they move in, so it decides the future). Never JSON or Map order.
 */
export function stateHash(): string {
  const view = new DataView(new ArrayBuffer(4 * (6 + sheep.length * 4)));
  let at = 0;
  const put = (v: number) => {
    view.setInt32(at, v, true);
    at += 4;
  };
  for (const v of [tick, paused ? 1 : 0, seed, rng, born, sheep.length]) put(v);
  for (const s of sheep) for (const v of [s.id, s.x, s.y, s.age]) put(v);
  return createHash('sha256').update(new Uint8Array(view.buffer)).digest('hex').slice(0, 16);
}

interface Savepoint {
  tick: number;
  paused: boolean;
  seed: number;
  rng: number;
  born: number;
  /** id, x, y, age for each sheep: a typed array, so the bridge can count the bytes a savepoint holds. */
  sheep: Int32Array;
}

export function snapshot(): Savepoint {
  const packed = new Int32Array(sheep.length * 4);
  sheep.forEach((s, n) => packed.set([s.id, s.x, s.y, s.age], n * 4));
  return { tick, paused, seed, rng, born, sheep: packed };
}

export function restore(savepoint: unknown): void {
  const sp = savepoint as Partial<Savepoint> | null;
  if (typeof sp !== 'object' || sp === null || !(sp.sheep instanceof Int32Array) || typeof sp.tick !== 'number') {
    throw badArgs('not a savepoint of the sheep field (take one with snapshot())');
  }
  tick = sp.tick;
  paused = sp.paused === true;
  seed = sp.seed ?? 1;
  rng = sp.rng ?? 1;
  born = sp.born ?? 0;
  sheep = [];
  for (let n = 0; n < sp.sheep.length; n += 4) {
    const [id, x, y, age] = sp.sheep.subarray(n, n + 4);
    sheep.push({ id: id!, name: `Sheep ${id!}`, x: x!, y: y!, age: age! });
  }
}

// --- Reads: get_world_state, get_tile, query_actors ---------------------------------------------

export function worldSize(): { width: number; height: number } {
  return { width: WIDTH, height: HEIGHT };
}

/** No kingdoms or cities here: their counts are left out. */
export function getWorldState(): WorldState {
  return { width: WIDTH, height: HEIGHT, seed, tick, paused, population_alive: sheep.length, population_lifetime: born };
}

/** Coordinates arrive checked against worldSize(): OUT_OF_BOUNDS is the bridge's job. No top layer, no heights, no kingdoms. */
export function getTile(x: number, y: number): TileReport {
  const actors = sheep.filter((s) => s.x === x && s.y === y).map((s) => ({ name: s.name, asset_id: 'sheep' }));
  return { x, y, tile_id: isWater(x, y) ? 'water' : 'grass', actors, actor_count: actors.length };
}

/** Sheep do not die and have no race or kingdom: such filters match nothing. */
export function queryActors(query: ActorQuery): { items: ActorRow[]; matched: number } {
  if (!query.alive || query.race !== undefined || query.kingdom_id !== undefined) return { items: [], matched: 0 };
  const rect = query.in_rect;
  const matches = rect ? sheep.filter((s) => s.x >= rect.x && s.y >= rect.y && s.x < rect.x + rect.w && s.y < rect.y + rect.h) : sheep;
  const items = matches.slice(query.offset, query.offset + query.limit).map((s) => ({ name: s.name, asset_id: 'sheep', x: s.x, y: s.y }));
  return { items, matched: matches.length };
}

// --- Actions: spawn -----------------------------------------------------------------------------

/** The actor catalogue: the ids spawn accepts (UNKNOWN_ASSET with did_you_mean for anything else). */
export function listActors(): AssetInfo[] {
  return [{ id: 'sheep', habitat: 'land', adult_after_ticks: ADULT_AGE }];
}

/**
 * The id is known and (x, y) is on the map by the time this runs. The first sheep goes on (x, y);
 * water there is a logical refusal (422 GAME_REJECTED), not a crash. The others go on the free
 * land around it, ring by ring; those that find none count as failed.
 */
export function spawn(entityId: string, x: number, y: number, count: number, adult: boolean): SpawnOutcome {
  if (isWater(x, y)) throw gameRejected(`a ${entityId} cannot stand on water at (${x}, ${y})`);
  const names: string[] = [addSheep(x, y, adult).name];
  for (let ring = 1; names.length < count && ring <= 3; ring++) {
    for (let dy = -ring; dy <= ring && names.length < count; dy++) {
      for (let dx = -ring; dx <= ring && names.length < count; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const px = x + dx;
        const py = y + dy;
        if (onMap(px, py) && !isWater(px, py)) names.push(addSheep(px, py, adult).name);
      }
    }
  }
  return { spawned: names.length, failed: count - names.length, names };
}

// --- Interface state: pause, resume, get_ui_state, dismiss_window -------------------------------

export function setPaused(next: boolean): boolean {
  const previous = paused;
  paused = next;
  return previous;
}

export function getUiState(): UiState {
  return { window_active: false, current_window: null, config_paused: paused, effective_paused: paused, world_loading: false };
}

export function dismissWindow(): { dismissed: boolean; window: string | null } {
  return { dismissed: false, window: null };
}
