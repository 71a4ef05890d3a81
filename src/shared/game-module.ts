// The one interface between the bridge and a game. A game module is an ES module whose named
// exports implement (part of) GameModule. It is loaded by path: inside the game-thread worker for
// the frame functions, and lazily inside pool workers for the pure "pool" functions.
//
// Thread rules (docs/game-module.md says the same for embedders):
// - "game thread" functions run only inside the game-thread worker, one at a time, between frames
//   (or from a per-frame job). They may read and write the world.
// - "pool" functions are pure: they get plain data, return plain data, and never touch the live
//   world. They run on a pool thread so heavy work (generation, parsing, encoding) never costs a frame.
// A game refuses an action by throwing an error whose `code` is 'GAME_REJECTED' (see
// `gameRejected()`, exported by `game-control-bridge/game`); any other thrown error becomes GAME_CRASH.
//
// Every function but `version`, `init`, `update` and `currentTick` is optional: a command whose
// functions are missing is disabled at startup (spec rule 3), and every other command keeps working.
// Fields marked optional below are what only the sandbox has (kingdoms, cities, zones, heights,
// races): a game without them leaves them out, and the command results allow their absence
// (docs/game-module.md lists what a game fills in and what it may leave out).

export interface GameInitOptions {
  /** Seed of the first world (`[Game] seed`). */
  seed: number;
  /**
   * Size of the first world in 64×64 zones, for a zone-based game (the sandbox); the bridge passes
   * 4×4 (decisions §1). A game with its own notion of size ignores them.
   */
  zonesX?: number;
  zonesY?: number;
  /** `[Game] suppress_startup_window`: false shows the welcome window, which freezes the simulation. */
  suppressStartupWindow: boolean;
  /** `startBridge({ gameOptions })`, passed through untouched (structured-cloned; SharedArrayBuffers are shared). */
  custom?: unknown;
}

/**
 * What the bridge hands a game on the game thread: to `init` (every game) and to `run` (a game
 * that drives its own frames).
 */
export interface GameHost {
  /** Run one bridge frame: publish the tick, drain up to 32 queued actions, step per-frame jobs. */
  drainFrame(): void;
  /** Resolves when the bridge shuts down; the game's loop should stop then. */
  readonly stopped: Promise<void>;
  /**
   * decisions §7: tell the bridge's event subscribers what happened in the world. Game thread only,
   * cheap to call (events are collected and cross to the main loop with the next answer, or at the
   * end of the frame). `kind` must be
   * one of the bridge's kinds or one the module declares in `eventKinds`; `fields` is plain JSON
   * data; `kingdomIds` names the kingdoms the event is about (fog: a faction player under
   * partial_intel sees only events about its own kingdom, and global ones, whose list is empty).
   */
  emit(kind: string, fields?: Record<string, unknown>, kingdomIds?: readonly number[]): void;
}

export interface AssetInfo {
  id: string;
  [field: string]: unknown;
}

export interface SpeedInfo {
  id: string;
  multiplier: number;
}

export interface UiState {
  window_active: boolean;
  current_window: string | null;
  config_paused: boolean;
  effective_paused: boolean;
  world_loading: boolean;
}

export interface WorldState {
  width: number;
  height: number;
  seed: number;
  tick: number;
  paused: boolean;
  population_alive: number;
  population_lifetime: number;
  /** A game with kingdoms and cities (the sandbox) counts them; others leave these out. */
  kingdoms_alive?: number;
  kingdoms_ever_created?: number;
  cities_alive?: number;
  cities_ever_created?: number;
  /** A game with named rule sets (the sandbox: sandbox, grow, duel) names the world's. */
  rules?: string;
}

export interface TileReport {
  x: number;
  y: number;
  tile_id: string;
  /** The top layer (grass, a road...) or null; a game without a top layer may leave it out. */
  top_id?: string | null;
  /** Terrain height, for a game that has one. */
  height?: number;
  /** `kingdom_id`: for a game with kingdoms (null: wild); left out otherwise. */
  actors: Array<{ name: string; asset_id: string; kingdom_id?: number | null }>;
  actor_count: number;
}

export interface KingdomInfo {
  id: number;
  name: string;
  race: string;
  king_name: string | null;
  capital_id: number | null;
  cities_count: number;
  units_count: number;
  wild: boolean;
  /** A game whose rules price actions (PriceQuote): what the kingdom may still spend. */
  favor?: number;
}

export interface CityInfo {
  id: number;
  name: string;
  kingdom_id: number;
  kingdom_name: string;
  leader_name: string | null;
  building_count: number;
  unit_count: number;
}

export interface ActorQuery {
  race?: string;
  kingdom_id?: number;
  in_rect?: { x: number; y: number; w: number; h: number };
  alive: boolean;
  limit: number;
  offset: number;
}

export interface ActorRow {
  name: string;
  asset_id: string;
  /** For a game with kingdoms (null: wild); left out otherwise. */
  kingdom_id?: number | null;
  x: number;
  y: number;
}

export interface SpawnOutcome {
  spawned: number;
  failed: number;
  names: string[];
}

export interface PaintOutcome {
  painted: number;
  skipped: number;
}

export interface WorldParams {
  zonesX: number;
  zonesY: number;
  seed: number;
  /** generate_world's `rules`, passed only when the caller gave it: a game with named rule sets refuses a name it does not know (BAD_ARGS). */
  rules?: string;
}

/**
 * A copy of the whole world as plain data (typed arrays inside), safe to post between threads.
 * Its shape belongs to the game; the bridge only moves it.
 */
export type WorldSnapshot = { width: number; height: number; seed: number } & Record<string, unknown>;

/** Whose view `observeGrid` takes, and how coarse. */
export interface GridView {
  /** Cells a side of the square grid the map is folded into, whatever its size. */
  cells: number;
  /** The viewer's own kingdom (its actors, land and counts), or null for none. */
  kingdomId: number | null;
  /** Whether the viewer may see the actors of other kingdoms and the wild ones (no fog). */
  others: boolean;
  /** How many of the kingdom's live cities to report as anchor points. */
  anchors: number;
  /** How many cities of the rival kingdom to report (only when `others`); 0 or left out: none. */
  rivalAnchors?: number;
}

/** A kingdom's budget under rules that price actions. */
export interface Economy {
  favor: number;
  /** What it can hold at most. */
  cap: number;
  /** What its cities add together, each at its city tick. */
  income: number;
}

/** A fixed-size picture of the world for one viewer (observe). Cells are row-major, `cells` × `cells`. */
export interface GridObservation {
  /** Per cell: the index in listTiles() of its commonest tile type. */
  tiles: Uint8Array;
  /** Three planes of cells: live actors of the kingdom, of other kingdoms, and wild ones (zero unless `others`). */
  actors: Uint16Array;
  /** Per cell: tiles owned by the kingdom's cities. */
  territory: Uint16Array;
  /** The kingdom's own numbers, all 0 when it is gone or there is none. */
  counts: { alive: boolean; population: number; cities: number; buildings: number; territory: number };
  /** Tile coordinates of the kingdom's first `anchors` live cities by id (fewer when it has fewer). */
  anchors: Array<{ x: number; y: number }>;
  /** Optional: per anchor, the figures of its city in the order of ANCHOR_STATS (shared/anchor-stats.ts), anchor after anchor. */
  anchorStats?: Int32Array;
  /** Optional: the kingdom's budget, for a game whose rules price actions. */
  economy?: Economy;
  /**
   * Optional, only when `rivalAnchors` > 0 and `others`: the rival (the other live civilised kingdom
   * whose capital is nearest the viewer's), its counts, its first cities and their figures.
   */
  rival?: {
    kingdomId: number;
    counts: { alive: boolean; population: number; cities: number; buildings: number; territory: number };
    anchors: Array<{ x: number; y: number }>;
    anchorStats: Int32Array;
  } | null;
}

/** What an action costs the kingdom of the player who sends it, under the world's rules. */
export interface PriceQuote {
  /** Its price (0: free). */
  price: number;
  /** Why the kingdom cannot pay it now (the price, what it holds, how that refills), or null when it can. */
  refusal: string | null;
}

/** An RGBA image, 4 bytes a pixel, row-major. */
export interface RgbaImage {
  width: number;
  height: number;
  rgba: Uint8Array;
}

export interface GameModule {
  /** game_version in /health and /capabilities. */
  readonly version: string;

  /**
   * Event kinds this game emits beyond the bridge's own (decisions §7), so /capabilities can list
   * them and subscribers can filter by them.
   */
  readonly eventKinds?: readonly string[];

  /**
   * Fog (decisions §7): per declared kind, the fields a faction player under partial_intel does not
   * get when the event names other kingdoms beside its own (names or positions of the others' people,
   * say). Such a player gets the event with its own kingdom alone in `kingdom_ids`, without these
   * fields, and `fogged` listing them (docs/events.md, "The fog form").
   */
  readonly eventFog?: Readonly<Record<string, readonly string[]>>;

  /** Game thread, once, before the first frame. May be async. `host.emit` may be kept and called from then on. */
  init(options: GameInitOptions, host: GameHost): void | Promise<void>;
  /** Game thread: advance the simulation by one frame of `dtMs` (a paused world does not tick). */
  update(dtMs: number): void;
  /** Game thread: the world tick, published to shared memory after every frame. */
  currentTick(): number;
  /**
   * Optional, game thread: a game with its own loop. When exported, the bridge runs no frame loop;
   * the game calls `host.drainFrame()` once per frame until `host.stopped` resolves.
   */
  run?(host: GameHost): void | Promise<void>;

  // Asset catalogue (game thread). Ids are the inputs of spawn, paint_tile, invoke_power, set_speed.
  listTiles?(): AssetInfo[];
  listTopTiles?(): AssetInfo[];
  /** `race` (the query_actors filter) for a game whose creatures have one. */
  listActors?(): Array<AssetInfo & { race?: string }>;
  listPowers?(): Array<AssetInfo & { supports_radius?: boolean; is_toggle?: boolean }>;
  listSpeeds?(): SpeedInfo[];
  currentSpeed?(): string;

  // Interface state (game thread).
  getUiState?(): UiState;
  /** Closes the open window, if any. */
  dismissWindow?(): { dismissed: boolean; window: string | null };
  /** Sets the configured pause; returns the previous configured value. */
  setPaused?(paused: boolean): boolean;
  /** Returns the previous speed id. */
  setSpeed?(speedId: string): string;

  // Reads (game thread).
  worldSize?(): { width: number; height: number };
  getWorldState?(): WorldState;
  getTile?(x: number, y: number): TileReport;
  listKingdoms?(includeWild: boolean): KingdomInfo[];
  listCities?(kingdomId?: number): CityInfo[];
  queryActors?(query: ActorQuery): { items: ActorRow[]; matched: number };
  /** The map folded into a fixed grid for one viewer (observe); the bridge applies the fog itself too. */
  observeGrid?(view: GridView): GridObservation;
  /** Ids of the non-wild kingdoms in creation order: `auto:N` claims resolve against it. */
  kingdomOrder?(): number[];

  // Actions (game thread). Arguments arrive validated: ids exist, coordinates are on the map.
  spawn?(entityId: string, x: number, y: number, count: number, adult: boolean): SpawnOutcome;
  paintTile?(x: number, y: number, tileId: string | null, topId: string | null, radius: number): PaintOutcome;
  /** One pulse of a power at (x, y); returns whether the world accepted it. */
  invokePower?(powerId: string, x: number, y: number, radius: number | null): boolean;
  /**
   * Optional, game thread: a game whose rules make actions cost the acting kingdom a budget. The
   * command layer asks before each action command a claimed player sends (each batch item too):
   * a refusal is answered as GAME_REJECTED and nothing runs; once the command ran, it calls spend.
   * A game without it (or a price of 0) makes every action free.
   */
  priceOf?(kingdomId: number, command: string, args: Readonly<Record<string, unknown>>): PriceQuote;
  /** Optional, game thread: takes `amount` from the kingdom's budget (after priceOf said it could pay). */
  spend?(kingdomId: number, amount: number): void;

  // World lifecycle.
  /** Game thread: a copy of the live world. */
  snapshotWorld?(): WorldSnapshot;
  /** Game thread: replace the live world (one frame). */
  installWorld?(snapshot: WorldSnapshot): void;
  /** Game thread: mark a world swap as pending (get_ui_state.world_loading) until installWorld. */
  setWorldLoading?(loading: boolean): void;
  /** Pool: build a new world. Pure. */
  generateWorld?(params: WorldParams): WorldSnapshot;
  /** Pool: serialise a snapshot to the bytes of a save file. */
  encodeSave?(snapshot: WorldSnapshot, compress: boolean): Uint8Array;
  /** Pool: parse a save file; throws an Error with code 'BAD_ARGS' when the bytes are not a save. */
  decodeSave?(bytes: Uint8Array): WorldSnapshot;
  /** Pool: draw a snapshot (the sandbox: tiles by type, actors and kingdom borders on top), scaled to fit maxDimension (0 = full size). */
  renderSnapshot?(snapshot: WorldSnapshot, maxDimension: number): RgbaImage;

  // Research mode (game thread): a world that moves only when told and runs the same twice. The
  // promise they serve together: one seed and one sequence of commands, each at its tick, give the
  // same stateHash() at every tick, whatever the speed, the clock or the reads in between.
  /**
   * Run exactly `ticks` simulation ticks now, back to back, whatever the pause flag, the speed and
   * the wall clock (a tick does the same whatever the speed). The bridge calls it one tick at a time
   * and closes that tick's events after each call, so advance(1) must be cheap and must close the
   * frame's event summaries as update() does.
   */
  advance?(ticks: number): void;
  /**
   * An in-memory savepoint of the whole state that decides the future: tick, every random state,
   * the world, and the interface state that counts (pause, speed, any pending-time accumulator), so
   * that after restore() the same commands give the same hashes. Opaque to the bridge, which keeps
   * it on the game thread; it must not share mutable parts with the live world.
   */
  snapshot?(): unknown;
  /** Put back a value snapshot() returned, exactly (stateHash() equal to the one it was taken at); it stays usable for another restore. */
  restore?(snapshot: unknown): void;
  /**
   * The memory a snapshot holds, in bytes (savepoint reports it). Without it, the bridge sums the
   * byteLength of the typed arrays and ArrayBuffers it finds in the snapshot's plain objects and
   * arrays (snapshotBytesOf in shared/snapshot-bytes.ts).
   */
  snapshotBytes?(snapshot: unknown): number;
  /**
   * A 64-bit digest of the canonical state as 16 lowercase hex digits: tick, every random state,
   * the world, speed and pause; never the clock, fps, thread timing or anything a read touches. The
   * same state gives the same value in any process on any machine (hash bytes in a fixed order and
   * byte order, never Map order or float formatting). Reading it changes nothing.
   */
  stateHash?(): string;
}

/** The names of the optional functions, for the game-type lookup at startup. */
export type GameFunctionName = {
  [K in keyof GameModule]-?: NonNullable<GameModule[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof GameModule];
