import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DestinationStream, Logger } from 'pino';
import { Admission } from './admission/semaphore.ts';
import { CredentialTable } from './auth/credentials.ts';
import { loadCommands } from './commands/load.ts';
import { CommandRegistry } from './commands/registry.ts';
import { warnReadableConfig } from './config/file-modes.ts';
import { watchKillSwitch } from './config/kill-switch.ts';
import { loadConfig, type LoadedConfig } from './config/load.ts';
import { claimRuntime, type RuntimeClaim } from './config/runtime-file.ts';
import { execute } from './dispatch/execute.ts';
import { GameThreadHost } from './dispatch/game-thread-host.ts';
import { CommandPool, type PoolHooks } from './dispatch/pool.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import { sweepStaleTemps } from './commands/shared/saves.ts';
import { DEFAULT_TIMINGS, LIMITS, type Timings } from './limits.ts';
import { createLogger } from './log/logger.ts';
import { Session } from './session/session.ts';
import { callSession } from './session/pool-calls.ts';
import { toFailure } from './errors/bridge-error.ts';
import type { KingdomInfo } from './shared/game-module.ts';
import { credentialsHeld, loadAgents } from './config/agents.ts';
import { bridgeInternal } from './commands/internal.ts';
import { createEvents } from './events/index.ts';
import { IdempotencyStore } from './idempotency/store.ts';
import { liveAgents } from './session/live-agents.ts';
import type { EventStats } from './events/hub.ts';
import { createMetrics } from './metrics/index.ts';
import { viewEntry } from './view/routes.ts';
import {
  createSharedState,
  kEnabled,
  kQueued,
  kStopping,
  kTick,
  kWorldEpoch,
  sActions,
  sBusyFrames,
  sFrames,
  sFullFrames,
  sFullOverheadMaxMs,
  sFullOverheadMs,
  sItems,
  sOverheadMs,
} from './shared/layout.ts';
import type { BridgeInfo, ClockMode } from './shared/protocol.ts';
import { MOD_VERSION } from './version.ts';
import { moduleUrl } from './shared/modules.ts';
import { sleep } from './shared/sleep.ts';
import { TeardownList } from './shared/teardown.ts';

export interface BridgeOptions {
  /** The game's plugin config directory (decisions §1): bridge.toml, agents.json, saves/. Default ./.bridge */
  configDir?: string;
  /** Overrides `[Bridge] port`; 0 picks a free port (tests). */
  port?: number;
  /** Path or file URL of the game module (decisions §6). Default: the built-in sandbox world. */
  game?: string | URL;
  /** Passed to the game's init() as `custom`. */
  gameOptions?: unknown;
  /** Shorter timing rules for tests; the defaults are the spec's. */
  timings?: Partial<Timings>;
  /** Where log lines go (default: stderr). */
  logDestination?: DestinationStream;
  logger?: Logger;
  /**
   * The game's own commands: paths or file URLs of modules whose default export is a command (or
   * an array of them) made with defineCommand. They load in every thread beside the built-ins.
   */
  commandModules?: Array<string | URL>;
  /** Pool threads (default: 2..4 by core count). */
  poolThreads?: number;
  /** Heap limit of each pool thread in MB (default 512): past it the worker dies alone and is replaced. */
  poolMemoryMb?: number;
  /** decisions §9: GET /metrics and the request series (default true; false measures their cost). */
  metrics?: boolean;
  /** decisions §12: overrides `[Game] clock` (`--lockstep`). */
  clock?: ClockMode;
}

export interface BridgeStats {
  /** Admission slots held now. */
  slotsInUse: number;
  /** Requests waiting for a slot. */
  waiting: number;
  /** Dispatcher entries queued or running. */
  dispatcherPending: number;
  /** Times the game thread died and was replaced by a fresh world. */
  gameThreadRestarts: number;
  /** Actions posted to the game thread and not yet drained. */
  queued: number;
  poolThreads: number;
  /** decisions §7: the event layer (seq, streams, waiting recv_events, drops). */
  events: EventStats;
  /** decisions §8: answers replayed for a repeated Idempotency-Key. */
  idempotentReplays: number;
  /** decisions §13: what the kept answers of Idempotency-Key requests count against idempotency_budget_mb. */
  idempotentBytes: number;
  /** What the dispatcher costs the game thread, handlers excluded (benchmarks report it). */
  frames: {
    frames: number;
    busyFrames: number;
    actions: number;
    /** decisions §8: items run (a lone command is one, a batch counts its items). */
    items: number;
    fullFrames: number;
    fullFrameOverheadMsAvg: number;
    fullFrameOverheadMsMax: number;
    busyFrameOverheadMsAvg: number;
  };
}

export interface BridgeHandle {
  url: string;
  port: number;
  /** The legacy-mode token (bridge.toml). Never printed by the bridge. */
  token: string;
  configPath: string;
  info: BridgeInfo;
  stats(): BridgeStats;
  /** decisions §10: read agents.json again now (the CLI calls it on SIGHUP); resolves once applied or refused. */
  reloadAgents(): Promise<void>;
  close(): Promise<void>;
}

export const SANDBOX_GAME = moduleUrl('./game/index.ts', import.meta.url);

/** Wiring only: config → log → game thread → pool → server (decisions §6: the library API). */
export async function startBridge(options: BridgeOptions = {}): Promise<BridgeHandle> {
  const configDir = resolve(options.configDir ?? '.bridge');
  const loaded = loadConfig(configDir, { ...(options.port === undefined ? {} : { port: options.port }), ...(options.clock ? { clock: options.clock } : {}) });
  const log = options.logger ?? createLogger(options.logDestination ? { destination: options.logDestination } : {});
  const teardown = new TeardownList();
  // decisions §15: `[Game] step_slice_ms` is a timing like the spec's; a test's own timings win.
  const timings: Timings = { ...DEFAULT_TIMINGS, stepSliceMs: loaded.config.Game.step_slice_ms, ...options.timings };
  const ctx: StartContext = { options, configDir, loaded, timings, log, teardown };
  let listening = false;
  // decisions §10: every line is written before the bridge is gone, so the log is first on the list.
  teardown.add('log', () => {
    if (listening) log.info('bridge closed');
    if (!options.logger) log.flush();
  });
  try {
    // One bridge per config dir: a second is refused before it starts anything.
    const runtime = claimRuntime(configDir, MOD_VERSION);
    teardown.add('runtime file', () => runtime.release());
    const bridge = await start(ctx, runtime);
    listening = true;
    return bridge;
  } catch (err) {
    await unwind(ctx);
    throw err;
  }
}

/**
 * What every start step reads, and the teardown list each adds its own teardown to: a failed start
 * and close() unwind that one list, last step first.
 */
interface StartContext {
  options: BridgeOptions;
  configDir: string;
  loaded: LoadedConfig;
  timings: Timings;
  log: Logger;
  teardown: TeardownList;
}

async function start(ctx: StartContext, runtime: RuntimeClaim): Promise<BridgeHandle> {
  const { loaded, log, timings } = ctx;
  for (const key of loaded.unknownKeys) log.warn({ config: loaded.path, key }, `bridge.toml: unknown key ${key} ignored`);
  const core = await prepareCore(ctx);
  const configFiles = [{ path: loaded.path, holds: 'the bridge token' }];
  if (core.agents) configFiles.push({ path: core.agents.path, holds: credentialsHeld(core.agents) });
  warnReadableConfig(configFiles, log);
  const { config } = loaded;
  // Places kept for parts that start later but close after the parts between (decisions §1): the
  // threads answer what they hold before the last connections are cut, and the game thread stops
  // before the pool, so a pool task waiting for a frame is answered BUSY, not lost with its worker.
  const connectionsTeardown = ctx.teardown.reserve('http connections');
  const poolTeardown = ctx.teardown.reserve('pool');
  const { game, eventKinds } = await startGameThread(ctx, core);
  const feeds = await startSessionFeeds(ctx, core, game);
  const { info, registry, capabilities } = await describeBridge(ctx, core, game, eventKinds);
  const pool = startPool(ctx, core, game, feeds.refreshClaims, info, poolTeardown);

  // In multi-agent mode only agents.json credentials exist: the legacy token answers 401.
  const credentials = new CredentialTable(core.session.credentials);
  const admission = new Admission(config.Bridge.max_concurrent_requests, timings.admissionWaitMs);
  // decisions §8 and §13: kept answers of keyed requests, on the main loop; gone with the process.
  const idempotency = new IdempotencyStore({ budgetBytes: config.Bridge.idempotency_budget_mb * 1024 * 1024 });
  const watchers = startWatchers(ctx, core, credentials, admission, idempotency);
  const metrics = startMetrics(ctx, core, admission, idempotency);

  const parts: Parts = { ...core, ...feeds, game, pool, info, registry, capabilities, credentials, admission, ...watchers, idempotency, metrics };
  const { port, url } = await startHttp(ctx, parts, connectionsTeardown);
  runtime.listening(url, port);
  log.info({ url, config: loaded.path, mod_version: MOD_VERSION, game: fileURLToPath(core.gameUrl) }, 'bridge listening');
  return bridgeHandle(ctx, parts, url, port);
}

/** Shared state, commands, the session and the event layer: built, none of them running yet. */
async function prepareCore(ctx: StartContext) {
  const { options, configDir, loaded, timings, log } = ctx;
  const { config } = loaded;
  const shared = createSharedState();
  Atomics.store(shared.control, kEnabled, config.enabled ? 1 : 0);
  const gameUrl = toGameUrl(options.game);
  const commandModules = (options.commandModules ?? []).map((module) => toModuleUrl(module).href);
  const commands = await loadCommands(commandModules);
  // decisions §4: agents.json switches multi-agent mode on; an invalid one refuses startup.
  const agents = loadAgents(configDir, config.Bridge.max_concurrent_requests);
  const session = agents ? Session.multiAgent(agents, shared.control, log) : Session.legacy(config.Bridge.token, shared.control, log);
  // decisions §7: the event layer exists before the game thread, whose first frame already emits.
  const events = createEvents({
    history: config.Bridge.event_history,
    maxStreams: config.Bridge.max_event_streams,
    multiAgent: session.multiAgent,
    tick: () => Atomics.load(shared.control, kTick),
    timings,
    log,
  });
  session.setEventSink((kind, fields, audience) => events.hub.emit(kind, fields, [], audience ? { agents: audience, readAll: false } : null));
  return { config, shared, gameUrl, commandModules, commands, agents, session, events };
}

type Core = Awaited<ReturnType<typeof prepareCore>>;

async function startGameThread(ctx: StartContext, core: Core) {
  const { options, timings, log } = ctx;
  const { config, shared, gameUrl, commandModules, events } = core;
  const game = await GameThreadHost.start(
    {
      sharedBuffer: shared.buffer,
      gameUrl: gameUrl.href,
      commandModules,
      init: {
        seed: config.Game.seed,
        zonesX: LIMITS.firstWorldZones,
        zonesY: LIMITS.firstWorldZones,
        suppressStartupWindow: config.Game.suppress_startup_window,
        custom: options.gameOptions,
      },
      fps: config.Game.fps,
      clock: config.Game.clock,
      maxSavepoints: config.Game.max_savepoints,
      timings,
    },
    shared,
    log,
    events.publishBatch,
  );
  ctx.teardown.add('game thread', () => game.stop());
  const ready = game.ready;
  const eventKinds = events.setGameKinds(ready.eventKinds, ready.eventFog);
  return { game, eventKinds };
}

/** What the main loop keeps in step with the running world: claims, the turn timer, the event layer. */
async function startSessionFeeds(ctx: StartContext, core: Core, game: GameThreadHost) {
  const { session, events, shared } = core;
  const system = session.credentials[0]!.caller;
  let claimsEpoch = -1;
  // `auto:N` claims follow the world: resolved at startup and again after every world swap.
  const refreshClaims = async () => {
    const epoch = Atomics.load(shared.control, kWorldEpoch);
    if (!session.multiAgent || epoch === claimsEpoch) return;
    claimsEpoch = epoch;
    const answer = await game.submit(bridgeInternal.name, 'kingdom_order', null, system);
    if (answer.outcome.ok) session.resolveClaims(answer.outcome.value as number[]);
  };
  await refreshClaims();
  game.onRestart(() => {
    claimsEpoch = -1;
    void refreshClaims();
  });
  events.start();
  // Begun when the bridge stops accepting (streams end then), awaited in the list's turn.
  let eventsStopped: Promise<void> | undefined;
  const stopEvents = () => (eventsStopped ??= events.stop());
  ctx.teardown.add('events', stopEvents);
  session.start();
  ctx.teardown.add('turn timer', () => session.stop());
  if (session.multiAgent) {
    events.watchObjectives({
      kingdoms: async () => (await game.submit(bridgeInternal.name, 'kingdoms', null, system)).outcome,
      judge: async (kingdoms) => {
        try {
          return { ok: true, value: session.objectives(kingdoms as KingdomInfo[]) };
        } catch (err) {
          return toFailure(err);
        }
      },
    });
  }
  return { refreshClaims, stopEvents };
}

/** BridgeInfo, the command registry and the /capabilities answer. */
async function describeBridge(ctx: StartContext, core: Core, game: GameThreadHost, eventKinds: readonly string[]) {
  const { configDir, log } = ctx;
  const { config, session, gameUrl, commands } = core;
  const ready = game.ready;
  const info: BridgeInfo = {
    modVersion: MOD_VERSION,
    gameVersion: ready.version,
    engineVersion: process.version,
    gameAssemblySha256: fileSha256(gameUrl),
    multiAgent: session.multiAgent,
    scenario: session.scenario,
    agentCount: session.agentCount,
    configDir,
    savesDir: resolve(configDir, config.Game.saves_dir),
    clock: config.Game.clock,
  };
  // A kill -9 mid-save leaves its temp file; no save of this process is running yet.
  const staleTemps = await sweepStaleTemps(info.savesDir);
  if (staleTemps > 0) log.info({ removed: staleTemps }, `removed ${staleTemps} temp file(s) of saves cut off by an earlier stop`);
  const registry = new CommandRegistry(commands, new Set(ready.functions), log);
  const capabilities = JSON.stringify({
    mod_version: info.modVersion,
    game_version: info.gameVersion,
    engine_version: info.engineVersion,
    game_assembly_sha256: info.gameAssemblySha256,
    commands: registry.descriptors,
    // Additive to the spec's object: what the game module cannot run, and why (spec rule 3), so a
    // client (gcb mcp) can say "disabled" instead of "unknown".
    disabled_commands: registry.disabled,
    event_kinds: eventKinds,
    clock: info.clock,
  });
  return { info, registry, capabilities };
}

function startPool(
  ctx: StartContext,
  core: Core,
  game: GameThreadHost,
  refreshClaims: () => Promise<void>,
  info: BridgeInfo,
  teardownAt: (run: () => Promise<void>) => void,
): CommandPool {
  const { options, timings, log } = ctx;
  const pool = new CommandPool({
    shared: core.shared,
    gameUrl: core.gameUrl.href,
    commandModules: core.commandModules,
    info,
    timings,
    ...(options.poolThreads === undefined ? {} : { threads: options.poolThreads }),
    ...(options.poolMemoryMb === undefined ? {} : { memoryMb: options.poolMemoryMb }),
    log,
    hooks: poolHooks(log, core, game, refreshClaims),
  });
  teardownAt(() => pool.destroy());
  return pool;
}

/** What pool commands reach on the main loop: frames, the session (its table of calls), events. */
function poolHooks(log: Logger, core: Core, game: GameThreadHost, refreshClaims: () => Promise<void>): PoolHooks {
  const { session, events } = core;
  return {
    frame: async (command, phase, input, caller) => {
      const answer = await game.submit(command, phase, input, caller);
      await refreshClaims();
      return answer.outcome;
    },
    enqueue: async (command, phase, input, caller, onFailure) => {
      // The answer goes back as soon as the action is in the queue: whatever the client sends
      // next is queued behind it (decisions §3: load_world answers once the swap is queued).
      void game.submit(command, phase, input, caller).then(async (answer) => {
        await refreshClaims();
        if (answer.outcome.ok) return;
        log.warn({ command, phase, code: answer.outcome.code }, `queued ${command}.${phase} failed: ${answer.outcome.message}`);
        if (onFailure) await game.submit(command, onFailure, null, caller);
      });
      return { ok: true, value: null };
    },
    session: async (name, input, caller) => callSession(session, name, input, caller),
    events: (name, input, caller, slot) => events.poolCall(name, input, caller, slot),
  };
}

/** agents.json and the kill switch, watched live. */
function startWatchers(ctx: StartContext, core: Core, credentials: CredentialTable, admission: Admission, idempotency: IdempotencyStore) {
  const { configDir, loaded, timings, log } = ctx;
  const { config, agents, session, events, shared } = core;
  // decisions §10: agents.json changed live (polled with the kill switch's interval; SIGHUP: reloadAgents).
  const agentsWatch = liveAgents({
    configDir,
    agents,
    session,
    credentials,
    admission,
    idempotency,
    hub: events.hub,
    control: shared.control,
    maxConcurrent: config.Bridge.max_concurrent_requests,
    intervalMs: timings.killSwitchReloadMs,
    log,
  });
  ctx.teardown.add('agents.json watch', () => agentsWatch.stop());
  const killSwitch = watchKillSwitch({
    path: loaded.path,
    initial: config.enabled,
    intervalMs: timings.killSwitchReloadMs,
    log,
    onChange: (enabled) => {
      Atomics.store(shared.control, kEnabled, enabled ? 1 : 0);
      // decisions §7: the kill switch does not stop events; it emits one.
      events.hub.emit('enabled_changed', { enabled });
    },
  });
  ctx.teardown.add('kill switch', () => killSwitch.stop());
  return { agentsWatch, killSwitch };
}

/** decisions §9: the series, read from what the parts above already keep. */
function startMetrics(ctx: StartContext, core: Core, admission: Admission, idempotency: IdempotencyStore) {
  if (ctx.options.metrics === false) return null;
  const metrics = createMetrics({
    shared: core.shared,
    admission,
    events: core.events.hub,
    multiAgent: core.session.multiAgent,
    idempotentReplays: () => idempotency.replays,
  });
  ctx.teardown.add('metrics', () => metrics.stop());
  return metrics;
}

/** Every part of a started bridge, as the http step and the handle read them. */
type Parts = Core &
  Awaited<ReturnType<typeof startSessionFeeds>> &
  Awaited<ReturnType<typeof describeBridge>> &
  ReturnType<typeof startWatchers> & {
    game: GameThreadHost;
    pool: CommandPool;
    credentials: CredentialTable;
    admission: Admission;
    idempotency: IdempotencyStore;
    metrics: ReturnType<typeof startMetrics>;
  };

async function startHttp(ctx: StartContext, parts: Parts, connectionsTeardown: (run: () => Promise<void>) => void) {
  const { timings, log } = ctx;
  const { config, credentials, killSwitch, registry, admission, session, shared, info, capabilities, events, metrics, game, pool, idempotency } = parts;
  let port = config.Bridge.port;
  const app = createApp(
    {
      port: () => port,
      credentials,
      enabled: () => killSwitch.enabled,
      registry,
      admission,
      session,
      shared,
      info,
      log,
      maxBodyBytes: config.Bridge.max_body_bytes,
      transferRestMsPerMiB: timings.transferRestMsPerMiB,
      capabilities,
      execute: (def, args, caller, slot, client, progress) => execute(def, args, caller, game, pool, slot, client, progress),
      idempotency,
    },
    // Features register themselves: the viewer's open page, GET /events with the audit of POST
    // /cmd, GET /metrics with the request series.
    [viewEntry(() => port), events.entry, ...(metrics ? [metrics.entry] : [])],
  );

  const server = await listen({ fetch: app.fetch, port, log });
  port = (server.address() as { port: number }).port;
  let closed: Promise<void> | undefined;
  const stopAccepting = () => {
    closed ??= new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
  };
  connectionsTeardown(async () => {
    stopAccepting();
    server.closeAllConnections();
    await closed;
  });
  // decisions §1: stop accepting, answer what waits with BUSY, let started actions finish (at most
  // the grace period); the threads close after this, in the list's turn.
  ctx.teardown.add('accepting', async () => {
    Atomics.store(shared.control, kStopping, 1);
    stopAccepting();
    admission.close();
    // Every event stream ends cleanly; waiting recv_events answer with what they have.
    void parts.stopEvents();
    game.closeQueue();
    await waitUntil(() => admission.inUse === 0, timings.shutdownGraceMs);
  });
  return { port, url: `http://127.0.0.1:${port}` };
}

function bridgeHandle(ctx: StartContext, parts: Parts, url: string, port: number): BridgeHandle {
  const { admission, game, shared, pool, events, idempotency, agentsWatch } = parts;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    token: parts.config.Bridge.token,
    configPath: ctx.loaded.path,
    info: parts.info,
    stats: () => ({
      slotsInUse: admission.inUse,
      waiting: admission.waiting,
      dispatcherPending: game.pending,
      gameThreadRestarts: game.restarts,
      queued: Atomics.load(shared.control, kQueued),
      poolThreads: pool.threads,
      frames: frameStats(shared.stats),
      events: events.hub.stats,
      idempotentReplays: idempotency.replays,
      idempotentBytes: idempotency.bytes,
    }),
    reloadAgents: () => agentsWatch.reload(),
    close: () => (closing ??= close(ctx)),
  };
}

/** Unwinds every part; rejects with what failed once all of them have had their turn. */
async function close(ctx: StartContext): Promise<void> {
  const failures = await unwind(ctx);
  if (failures.length === 1) throw failures[0]!.error;
  if (failures.length > 1)
    throw new AggregateError(
      failures.map((failure) => failure.error),
      `closing the bridge: ${failures.length} parts failed to close`,
    );
}

/** The teardown list, each step logged (debug), each failure logged and the rest still run. */
function unwind(ctx: StartContext) {
  const { log } = ctx;
  return ctx.teardown.unwind({
    before: (name) => log.debug({ part: name }, `closing: ${name}`),
    failed: (name, err) => log.error({ part: name, err }, `closing: ${name} failed: ${(err as Error)?.message ?? String(err)}`),
  });
}

function frameStats(stats: Float64Array): BridgeStats['frames'] {
  const full = stats[sFullFrames]!;
  const busy = stats[sBusyFrames]!;
  return {
    frames: stats[sFrames]!,
    busyFrames: busy,
    actions: stats[sActions]!,
    items: stats[sItems]!,
    fullFrames: full,
    fullFrameOverheadMsAvg: full > 0 ? stats[sFullOverheadMs]! / full : 0,
    fullFrameOverheadMsMax: stats[sFullOverheadMaxMs]!,
    busyFrameOverheadMsAvg: busy > 0 ? stats[sOverheadMs]! / busy : 0,
  };
}

function toGameUrl(game: string | URL | undefined): URL {
  if (game === undefined) return SANDBOX_GAME;
  return toModuleUrl(game);
}

function toModuleUrl(module: string | URL): URL {
  if (module instanceof URL) return module;
  return module.startsWith('file:') ? new URL(module) : pathToFileURL(resolve(module));
}

/** game_assembly_sha256: the SHA-256 of the game module's file (decisions §6). */
function fileSha256(url: URL): string {
  return createHash('sha256').update(readFileSync(url)).digest('hex');
}

/** Polls `predicate` until it holds or `ms` have passed; never holds the process up. */
async function waitUntil(predicate: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate() && performance.now() < deadline) await sleep(10, { unref: true });
}
