// The built-in sandbox world as a GameModule: the named exports below are what the bridge binds its
// commands to. Importing this file is cheap and has no side effects (pool workers import it for the
// pure functions only); the live world exists from init() on and only on the game thread.
import { badArgs, gameRejected, outOfBounds, unknownAsset } from '../errors/bridge-error.ts';
import { LIMITS } from '../limits.ts';
import type {
  ActorQuery,
  AssetInfo,
  CityInfo,
  GameInitOptions,
  GameModule,
  KingdomInfo,
  PaintOutcome,
  RgbaImage,
  SpawnOutcome,
  SpeedInfo,
  UiState,
  WorldParams,
  WorldSnapshot,
  WorldState,
} from '../shared/game-module.ts';
import { ACTOR_IDS, ACTOR_INDEX, ACTORS, POWER_IDS, POWERS, SPEED_IDS, SPEEDS, TILE_IDS, TILE_INDEX, TILES, TOP_IDS, TOP_INDEX, TOPS } from './assets.ts';
import { buildWorld, checkParams, GenerateError, generateSnapshot } from './generate.ts';
import { paint } from './paint.ts';
import { applyPower, powerAsset } from './powers.ts';
import { cityViews, civKingdomOrder, kingdomViews, queryActorViews, tileView, worldStateView, type ActorRowView, type TileView } from './reads.ts';
import { render } from './render.ts';
import { decodeSave as decodeBytes, encodeSave as encodeBytes, SaveFormatError } from './save-format.ts';
import { fromSnapshot, hashSnapshot, SnapshotError, toSnapshot, validateSnapshot } from './snapshot.ts';
import { tick } from './simulation.ts';
import { spawnActors, SpawnRefused } from './spawn.ts';
import { changeSpeed, createUi, dismiss, effectivePaused, ticksFor, uiState, type Ui } from './ui.ts';
import { inBounds, type LawId, type World } from './world.ts';

export const version = 'sandbox-1.0.0';

interface Live {
  world: World;
  ui: Ui;
}

let live: Live | null = null;

function current(): Live {
  if (!live) throw new Error('the sandbox world is not initialised: init() must run first');
  return live;
}

function checkTile(w: World, x: number, y: number): void {
  if (!Number.isInteger(x) || !Number.isInteger(y) || !inBounds(w, x, y)) {
    throw outOfBounds(`(${x}, ${y}) is outside the ${w.width}x${w.height} map`);
  }
}

// --- Frames ---------------------------------------------------------------------------------

export function init(options: GameInitOptions): void {
  const zonesX = options.zonesX ?? LIMITS.firstWorldZones;
  const zonesY = options.zonesY ?? LIMITS.firstWorldZones;
  const world = buildWorld({ zonesX, zonesY, seed: options.seed });
  live = { world, ui: createUi(!options.suppressStartupWindow) };
}

/** Advances the world by the ticks `dtMs` buys at the current speed (none while paused). */
export function update(dtMs: number): void {
  const { world, ui } = current();
  const ticks = ticksFor(ui, dtMs);
  for (let n = 0; n < ticks; n++) tick(world);
}

/** Simulation ticks done by the live world (a generated or loaded world brings its own count). */
export function currentTick(): number {
  return live ? live.world.tick : 0;
}

// --- Catalogue --------------------------------------------------------------------------------

export function listTiles(): AssetInfo[] {
  return TILES.map((t) => ({ id: t.id, category: t.category, water: t.water, walkable: t.walkable, flammable: t.flammable, buildable: t.buildable }));
}

/** paint_tile's top_id that clears the top layer (listed first among the top tiles). */
export const NO_TOP = 'none';

export function listTopTiles(): AssetInfo[] {
  return [{ id: NO_TOP, category: 'none', flammable: false, clears: true }, ...TOPS.map((t) => ({ id: t.id, category: t.category, flammable: t.flammable }))];
}

export function listActors(): Array<AssetInfo & { race: string }> {
  return ACTORS.map((a) => ({
    id: a.id,
    race: a.race,
    kind: a.kind,
    habitat: a.habitat,
    max_hp: a.maxHp,
    damage: a.damage,
    diet: a.diet,
    lifespan_years: a.lifespanYears,
    adult_years: a.adultYears,
  }));
}

export function listPowers(): Array<AssetInfo & { supports_radius?: boolean; is_toggle?: boolean }> {
  const laws = live?.world.laws;
  return POWERS.map((p) => {
    const info: AssetInfo & { supports_radius: boolean; is_toggle: boolean } = {
      id: p.id,
      family: p.family,
      description: p.description,
      supports_radius: p.supportsRadius,
      is_toggle: p.isToggle,
    };
    if (p.supportsRadius) info.default_radius = p.radius;
    if (p.actor !== undefined) info.spawns = p.actor;
    if (p.isToggle) info.active = laws ? laws[p.id as LawId] : false;
    return info;
  });
}

export function listSpeeds(): SpeedInfo[] {
  return SPEEDS.map((s) => ({ id: s.id, multiplier: s.multiplier }));
}

export function currentSpeed(): string {
  return current().ui.speedId;
}

// --- Interface state ----------------------------------------------------------------------------

export function getUiState(): UiState {
  return uiState(current().ui);
}

export function dismissWindow(): { dismissed: boolean; window: string | null } {
  return dismiss(current().ui);
}

export function setPaused(paused: boolean): boolean {
  const { ui } = current();
  const previous = ui.configPaused;
  ui.configPaused = paused;
  return previous;
}

export function setSpeed(speedId: string): string {
  const previous = changeSpeed(current().ui, speedId);
  if (previous === false) throw unknownAsset('speed_id', speedId, SPEED_IDS);
  return previous;
}

// --- Reads --------------------------------------------------------------------------------------

export function worldSize(): { width: number; height: number } {
  const { world } = current();
  return { width: world.width, height: world.height };
}

// The sandbox fills every optional field of the interface: its return types say so.
export function getWorldState(): Required<WorldState> {
  const { world, ui } = current();
  return worldStateView(world, effectivePaused(ui));
}

export function getTile(x: number, y: number): TileView {
  const { world } = current();
  checkTile(world, x, y);
  return tileView(world, x, y);
}

export function listKingdoms(includeWild: boolean): KingdomInfo[] {
  return kingdomViews(current().world, includeWild);
}

export function listCities(kingdomId?: number): CityInfo[] {
  return cityViews(current().world, kingdomId);
}

export function queryActors(query: ActorQuery): { items: ActorRowView[]; matched: number } {
  return queryActorViews(current().world, query);
}

export function kingdomOrder(): number[] {
  return civKingdomOrder(current().world);
}

// --- Actions ------------------------------------------------------------------------------------

export function spawn(entityId: string, x: number, y: number, count: number, adult: boolean): SpawnOutcome {
  const { world } = current();
  const asset = ACTOR_INDEX.get(entityId);
  if (asset === undefined) throw unknownAsset('entity_id', entityId, ACTOR_IDS);
  checkTile(world, x, y);
  try {
    return spawnActors(world, asset, x, y, Math.max(1, Math.floor(count)), adult);
  } catch (err) {
    if (err instanceof SpawnRefused) throw gameRejected(err.message, 'SpawnRefused');
    throw err;
  }
}

export function paintTile(x: number, y: number, tileId: string | null, topId: string | null, radius: number): PaintOutcome {
  const { world } = current();
  if (tileId === null && topId === null) throw badArgs('paint_tile needs tile_id, top_id or both');
  const tile = tileId === null ? null : TILE_INDEX.get(tileId);
  if (tile === undefined) throw unknownAsset('tile_id', String(tileId), TILE_IDS);
  const top = topId === null ? null : topId === NO_TOP ? 0 : TOP_INDEX.get(topId);
  if (top === undefined) throw unknownAsset('top_id', String(topId), [NO_TOP, ...TOP_IDS]);
  checkTile(world, x, y);
  return paint(world, x, y, tile, top, Math.max(0, Math.min(200, Math.floor(radius))));
}

export function invokePower(powerId: string, x: number, y: number, radius: number | null): boolean {
  const { world } = current();
  const power = powerAsset(powerId);
  if (!power) throw unknownAsset('power_id', powerId, POWER_IDS);
  checkTile(world, x, y);
  return applyPower(world, power, x, y, radius);
}

// --- World lifecycle ----------------------------------------------------------------------------

export function snapshotWorld(): WorldSnapshot {
  return toSnapshot(current().world);
}

export function installWorld(snapshot: WorldSnapshot): void {
  const l = current();
  let world: World;
  try {
    world = fromSnapshot(snapshot);
  } catch (err) {
    if (err instanceof SnapshotError) throw badArgs(`not a sandbox world snapshot: ${err.message}`);
    throw err;
  }
  l.world = world;
  l.ui.worldLoading = false;
  l.ui.pendingMs = 0;
}

export function setWorldLoading(loading: boolean): void {
  current().ui.worldLoading = loading;
}

/** Pool: a new world as a snapshot. Pure. */
export function generateWorld(params: WorldParams): WorldSnapshot {
  try {
    checkParams(params);
    return generateSnapshot(params);
  } catch (err) {
    if (err instanceof GenerateError) throw badArgs(err.message);
    throw err;
  }
}

/** Pool: the bytes of a save file. */
export function encodeSave(snapshot: WorldSnapshot, compress: boolean): Uint8Array {
  try {
    return encodeBytes(validateSnapshot(snapshot), compress);
  } catch (err) {
    if (err instanceof SnapshotError) throw badArgs(`not a sandbox world snapshot: ${err.message}`);
    throw err;
  }
}

/** Pool: a snapshot from the bytes of a save file. */
export function decodeSave(bytes: Uint8Array): WorldSnapshot {
  try {
    return decodeBytes(bytes);
  } catch (err) {
    if (err instanceof SaveFormatError) throw badArgs(`the bytes are not a save file of this game: ${err.message}`);
    throw err;
  }
}

/** Pool: the snapshot as an RGBA image, no larger than maxDimension a side (0 = full size). */
export function renderSnapshot(snapshot: WorldSnapshot, maxDimension: number): RgbaImage {
  try {
    return render(validateSnapshot(snapshot), maxDimension);
  } catch (err) {
    if (err instanceof SnapshotError) throw badArgs(`not a sandbox world snapshot: ${err.message}`);
    throw err;
  }
}

// --- Helpers beyond GameModule (tests, benchmarks, tools) ---------------------------------------

/** sha256 of the live world's whole state: equal hashes mean equal worlds. */
export function stateHash(): string {
  return hashSnapshot(toSnapshot(current().world));
}

/** sha256 of a snapshot's state (the same function stateHash uses). */
export function snapshotHash(snapshot: WorldSnapshot): string {
  return hashSnapshot(validateSnapshot(snapshot));
}

export { ACTOR_IDS, POWER_IDS, SPEED_IDS, TILE_IDS, TOP_IDS } from './assets.ts';

// Compile-time proof that the named exports implement every GameModule function (`run` excepted:
// the sandbox lets the bridge drive its frames).
const sandbox = {
  version,
  init,
  update,
  currentTick,
  listTiles,
  listTopTiles,
  listActors,
  listPowers,
  listSpeeds,
  currentSpeed,
  getUiState,
  dismissWindow,
  setPaused,
  setSpeed,
  worldSize,
  getWorldState,
  getTile,
  listKingdoms,
  listCities,
  queryActors,
  kingdomOrder,
  spawn,
  paintTile,
  invokePower,
  snapshotWorld,
  installWorld,
  setWorldLoading,
  generateWorld,
  encodeSave,
  decodeSave,
  renderSnapshot,
} satisfies Required<Omit<GameModule, 'run' | 'eventKinds'>>;
void sandbox;
