// The built-in sandbox world as a GameModule: the named exports below are what the bridge binds its
// commands to. Importing this file is cheap and has no side effects (pool workers import it for the
// pure functions only); the live world exists from init() on and only on the game thread.
import { badArgs, gameRejected, outOfBounds, unknownAsset } from '../errors/bridge-error.ts';
import { LIMITS } from '../limits.ts';
import type {
  ActorQuery,
  AssetInfo,
  CityInfo,
  GameHost,
  GameInitOptions,
  GameModule,
  GridObservation,
  GridView,
  KingdomInfo,
  PaintOutcome,
  PriceQuote,
  RgbaImage,
  SpawnOutcome,
  SpeedInfo,
  UiState,
  WorldParams,
  WorldSnapshot,
  WorldState,
} from '../shared/game-module.ts';
import { ACTOR_IDS, ACTOR_INDEX, ACTORS, POWER_IDS, POWERS, SPEED_IDS, SPEEDS, TILE_IDS, TILE_INDEX, TILES, TOP_IDS, TOP_INDEX, TOPS } from './assets.ts';
import { SANDBOX_EVENT_FOG, SANDBOX_EVENT_KINDS, WorldEvents } from './events.ts';
import { buildWorld, checkParams, GenerateError, generateSnapshot } from './generate.ts';
import { observeWorld } from './observe.ts';
import { paint } from './paint.ts';
import { applyPower, effectiveRadius, powerAsset } from './powers.ts';
import { cityViews, civKingdomOrder, kingdomViews, queryActorViews, tileView, worldStateView, type ActorRowView, type TileView } from './reads.ts';
import { render } from './render.ts';
import { commandPrice, kingdomIncome, powerPrice, rulesOf, spawnPrice } from './rules.ts';
import { checkSavepoint, restoreWorld, SavepointError, savepointBytes, takeSavepoint, type WorldCopy } from './savepoint.ts';
import { decodeSave as decodeBytes, encodeSave as encodeBytes, SaveFormatError } from './save-format.ts';
import { fromSnapshot, SnapshotError, toSnapshot, validateSnapshot } from './snapshot.ts';
import { tick } from './simulation.ts';
import { spawnActors, SpawnRefused } from './spawn.ts';
import { hashState } from './state-hash.ts';
import { changeSpeed, createUi, dismiss, effectivePaused, ticksFor, uiState, type Ui } from './ui.ts';
import { inBounds, type LawId, type World } from './world.ts';

export const version = 'sandbox-1.0.0';

/** decisions §7: the kinds the sandbox emits through its host (docs/sandbox-events.md). */
export const eventKinds: readonly string[] = SANDBOX_EVENT_KINDS;
/** decisions §7: what a fogged player does not get of an event naming other kingdoms too. */
export const eventFog: Readonly<Record<string, readonly string[]>> = SANDBOX_EVENT_FOG;

interface Live {
  world: World;
  ui: Ui;
  /** The reporter behind host.emit; null when init got no host (tests and tools). */
  events: WorldEvents | null;
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

/** `host` is optional here (the GameModule contract always passes one): without it nothing is reported. */
export function init(options: GameInitOptions, host?: GameHost): void {
  const zonesX = options.zonesX ?? LIMITS.firstWorldZones;
  const zonesY = options.zonesY ?? LIMITS.firstWorldZones;
  const world = buildWorld({ zonesX, zonesY, seed: options.seed });
  const events = host ? new WorldEvents(host) : null;
  world.events = events;
  const ui = createUi(!options.suppressStartupWindow);
  live = { world, ui, events };
  if (ui.window !== null) events?.emit('window_opened', { window: ui.window });
}

/**
 * Advances the world by the ticks `dtMs` buys at the current speed (none while paused). A frame
 * runs from one update() to the next, so this first closes the previous one (decisions §7: its
 * population summaries, when it had more than 256 actor events).
 */
export function update(dtMs: number): void {
  const { world, ui, events } = current();
  events?.endFrame(world);
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
  const prices = live ? rulesOf(live.world).prices : null;
  return ACTORS.map((a, index) => ({
    id: a.id,
    race: a.race,
    kind: a.kind,
    habitat: a.habitat,
    max_hp: a.maxHp,
    damage: a.damage,
    diet: a.diet,
    lifespan_years: a.lifespanYears,
    adult_years: a.adultYears,
    // Under rules that price actions: what one newborn and one adult cost the spawning kingdom.
    ...(prices && { cost: spawnPrice(prices, index, false, 1), adult_cost: spawnPrice(prices, index, true, 1) }),
  }));
}

export function listPowers(): Array<AssetInfo & { supports_radius?: boolean; is_toggle?: boolean }> {
  const laws = live?.world.laws;
  const prices = live ? rulesOf(live.world).prices : null;
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
    // Under rules that price actions: one pulse at the default radius (a wider brush costs in proportion to its area).
    if (prices) info.cost = powerPrice(prices, p.id, null);
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
  const { ui, events } = current();
  const outcome = dismiss(ui);
  if (outcome.dismissed) events?.emit('window_dismissed', { window: outcome.window });
  return outcome;
}

export function setPaused(paused: boolean): boolean {
  const { ui, events } = current();
  const previous = ui.configPaused;
  ui.configPaused = paused;
  if (events && previous !== paused) events.emit(paused ? 'paused' : 'resumed', { effective_paused: effectivePaused(ui) });
  return previous;
}

export function setSpeed(speedId: string): string {
  const { ui, events } = current();
  const previous = changeSpeed(ui, speedId);
  if (previous === false) throw unknownAsset('speed_id', speedId, SPEED_IDS);
  if (events && previous !== speedId) events.emit('speed_changed', { speed_id: speedId, multiplier: ui.multiplier, previous });
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

export function observeGrid(view: GridView): GridObservation {
  return observeWorld(current().world, view);
}

export function kingdomOrder(): number[] {
  return civKingdomOrder(current().world);
}

// --- Actions ------------------------------------------------------------------------------------

export function spawn(entityId: string, x: number, y: number, count: number, adult: boolean): SpawnOutcome {
  const { world, events } = current();
  const asset = ACTOR_INDEX.get(entityId);
  if (asset === undefined) throw unknownAsset('entity_id', entityId, ACTOR_IDS);
  checkTile(world, x, y);
  const requested = Math.max(1, Math.floor(count));
  const touched = events?.touched();
  let outcome: SpawnOutcome;
  try {
    outcome = spawnActors(world, asset, x, y, requested, adult, touched);
  } catch (err) {
    if (err instanceof SpawnRefused) throw gameRejected(err.message, 'SpawnRefused');
    throw err;
  }
  if (events && touched) {
    const { spawned, failed, names } = outcome;
    events.emit('spawned', { entity_id: entityId, x, y, requested, spawned, failed, names: names.slice() }, touched.list());
  }
  return outcome;
}

export function paintTile(x: number, y: number, tileId: string | null, topId: string | null, radius: number): PaintOutcome {
  const { world, events } = current();
  if (tileId === null && topId === null) throw badArgs('paint_tile needs tile_id, top_id or both');
  const tile = tileId === null ? null : TILE_INDEX.get(tileId);
  if (tile === undefined) throw unknownAsset('tile_id', String(tileId), TILE_IDS);
  const top = topId === null ? null : topId === NO_TOP ? 0 : TOP_INDEX.get(topId);
  if (top === undefined) throw unknownAsset('top_id', String(topId), [NO_TOP, ...TOP_IDS]);
  checkTile(world, x, y);
  const r = Math.max(0, Math.min(200, Math.floor(radius)));
  // Whose land and people the brush covers, looked at before painting (water takes land from its city).
  const touched = events?.touched();
  touched?.addDisc(world, x, y, r);
  const outcome = paint(world, x, y, tile, top, r);
  if (events && touched) {
    events.emit('tiles_painted', { x, y, radius: r, tile_id: tileId, top_id: topId, painted: outcome.painted, skipped: outcome.skipped }, touched.list());
  }
  return outcome;
}

/** What an action costs the kingdom of the player sending it, under the world's rules (rules.ts). */
export function priceOf(kingdomId: number, command: string, args: Readonly<Record<string, unknown>>): PriceQuote {
  const { world } = current();
  const price = commandPrice(world, command, args);
  const kingdom = world.kingdoms[kingdomId - 1];
  if (price === 0 || kingdom === undefined) return { price: 0, refusal: null };
  if (!kingdom.alive) return { price, refusal: `${kingdom.name} has fallen: it has no favor left to pay ${price} for ${command}` };
  if (kingdom.favor >= price) return { price, refusal: null };
  const favor = rulesOf(world).favor!;
  return {
    price,
    refusal:
      `${command} costs ${price} favor under the ${rulesOf(world).id} rules; ${kingdom.name} holds ${kingdom.favor}. ` +
      `Favor comes back every 32 ticks: each city adds ${favor.base} + 1 per ${favor.perTiles} tiles of its land ` +
      `(${kingdomIncome(world, kingdom)} in all now), up to ${favor.cap}. Wait (step) or send something cheaper`,
  };
}

/** Takes what priceOf quoted from the kingdom's favor. */
export function spend(kingdomId: number, amount: number): void {
  const kingdom = current().world.kingdoms[kingdomId - 1];
  if (kingdom && amount > 0) kingdom.favor = Math.max(0, kingdom.favor - amount);
}

export function invokePower(powerId: string, x: number, y: number, radius: number | null): boolean {
  const { world, events } = current();
  const power = powerAsset(powerId);
  if (!power) throw unknownAsset('power_id', powerId, POWER_IDS);
  checkTile(world, x, y);
  const touched = events?.touched();
  const accepted = applyPower(world, power, x, y, radius, touched);
  if (accepted && events && touched) {
    const active = power.isToggle ? world.laws[power.id as LawId] : null;
    events.emit('power_invoked', { power_id: power.id, x, y, radius: effectiveRadius(power, radius), active }, touched.list());
  }
  return accepted;
}

// --- World lifecycle ----------------------------------------------------------------------------

export function snapshotWorld(): WorldSnapshot {
  return toSnapshot(current().world);
}

export function installWorld(snapshot: WorldSnapshot): void {
  const state = current();
  let world: World;
  try {
    world = fromSnapshot(snapshot);
  } catch (err) {
    if (err instanceof SnapshotError) throw badArgs(`not a sandbox world snapshot: ${err.message}`);
    throw err;
  }
  // The old world's frame ends here: its summaries count its own actors. The reporter moves on.
  state.events?.endFrame(state.world);
  world.events = state.events;
  state.world = world;
  state.ui.worldLoading = false;
  state.ui.pendingMs = 0;
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

// --- Research mode: a world that moves only when told, hashed, saved in memory and put back ----

/**
 * Runs exactly `ticks` simulation ticks now, back to back, whatever the pause, the window, the speed
 * and the clock: a tick is a tick. Each tick is a frame of its own for the event summaries (the
 * frame before the first one, what commands did since the last frame, is closed first), so a caller
 * stepping one tick at a time can flush each tick's events as it goes.
 */
export function advance(ticks: number): void {
  if (!Number.isInteger(ticks) || ticks < 0) throw badArgs(`ticks must be a whole number, 0 or more; got ${String(ticks)}`);
  const { world, events } = current();
  events?.endFrame(world);
  for (let n = 0; n < ticks; n++) {
    tick(world);
    events?.endFrame(world);
  }
}

/** A savepoint in memory: everything that decides the future, the interface's pause and speed included. */
export function snapshot(): unknown {
  const { world, ui } = current();
  return takeSavepoint(world, ui);
}

/** Puts a savepoint back exactly (tick, random state, every record); it stays usable for another restore. */
export function restore(savepoint: unknown): void {
  const l = current();
  let sp: WorldCopy;
  let world: World;
  try {
    sp = checkSavepoint(savepoint);
    // The frame ends here, as on a world swap: its summaries count the world they happened in.
    l.events?.endFrame(l.world);
    world = restoreWorld(l.world, l.ui, sp); // refuses before it writes anything
  } catch (err) {
    if (err instanceof SavepointError || err instanceof SnapshotError) throw badArgs(`not a savepoint of this world: ${err.message}`);
    throw err;
  }
  l.world = world;
}

/** The memory a savepoint holds: its typed arrays exactly, its kingdom and city records estimated. */
export function snapshotBytes(savepoint: unknown): number {
  try {
    return savepointBytes(checkSavepoint(savepoint));
  } catch (err) {
    if (err instanceof SavepointError) throw badArgs(err.message);
    throw err;
  }
}

/**
 * 64-bit digest of the canonical state as 16 lowercase hex (state-hash.ts says what it covers): the
 * same state gives the same value in any process on any machine, and reading it changes nothing.
 */
export function stateHash(): string {
  const { world, ui } = current();
  return hashState(world, ui);
}

// --- Helpers beyond GameModule (tests, benchmarks, tools) ---------------------------------------

/**
 * The digest of the live world alone, without the interface state (hashState with no interface):
 * equal to snapshotHash(snapshotWorld()), so a live world compares with a saved one.
 */
export function liveSnapshotHash(): string {
  return hashState(current().world, null);
}

/** The digest of a snapshot's world, as liveSnapshotHash gives it for a live world. */
export function snapshotHash(snapshot: WorldSnapshot): string {
  try {
    return hashState(fromSnapshot(snapshot, true), null);
  } catch (err) {
    if (err instanceof SnapshotError) throw badArgs(`not a sandbox world snapshot: ${err.message}`);
    throw err;
  }
}

export { ACTOR_IDS, POWER_IDS, SPEED_IDS, TILE_IDS, TOP_IDS } from './assets.ts';

// Compile-time proof that the named exports implement every GameModule member (`run` excepted:
// the sandbox lets the bridge drive its frames).
const sandbox = {
  version,
  eventKinds,
  eventFog,
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
  observeGrid,
  spawn,
  paintTile,
  invokePower,
  priceOf,
  spend,
  snapshotWorld,
  installWorld,
  setWorldLoading,
  generateWorld,
  encodeSave,
  decodeSave,
  renderSnapshot,
  advance,
  snapshot,
  restore,
  snapshotBytes,
  stateHash,
} satisfies Required<Omit<GameModule, 'run'>>;
void sandbox;
