import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
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
import { CommandPool } from './dispatch/pool.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import { sweepStaleTemps } from './commands/shared/saves.ts';
import { DEFAULT_TIMINGS, LIMITS, type Timings } from './limits.ts';
import { createLogger } from './log/logger.ts';
import { Session } from './session/session.ts';
import { loadAgents } from './config/agents.ts';
import { bridgeInternal } from './commands/internal.ts';
import { createEvents } from './events/index.ts';
import { IdempotencyStore } from './idempotency/store.ts';
import { liveAgents } from './session/live-agents.ts';
import type { EventStats } from './events/hub.ts';
import { createMetrics } from './metrics/index.ts';
import { viewRoutes } from './view/routes.ts';
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
import type { BridgeInfo } from './shared/protocol.ts';
import { MOD_VERSION } from './version.ts';
import { moduleUrl } from './shared/modules.ts';

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
  const loaded = loadConfig(configDir, options.port === undefined ? {} : { port: options.port });
  // One bridge per config dir: a second is refused before it starts anything.
  const runtime = claimRuntime(configDir, MOD_VERSION);
  try {
    return await start(options, configDir, loaded, runtime);
  } catch (err) {
    runtime.release();
    throw err;
  }
}

async function start(options: BridgeOptions, configDir: string, loaded: LoadedConfig, runtime: RuntimeClaim): Promise<BridgeHandle> {
  const { config } = loaded;
  const timings: Timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const log = options.logger ?? createLogger(options.logDestination ? { destination: options.logDestination } : {});
  for (const key of loaded.unknownKeys) log.warn({ config: loaded.path, key }, `bridge.toml: unknown key ${key} ignored`);
  warnReadableConfig([loaded.path, join(configDir, 'agents.json')], log);

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
      timings,
    },
    shared,
    log,
    events.publishBatch,
  );
  const ready = game.ready;
  const eventKinds = events.setGameKinds(ready.eventKinds, ready.eventFog);
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
  session.start();
  events.start();
  if (session.multiAgent) {
    events.watchObjectives({
      kingdoms: async () => (await game.submit(bridgeInternal.name, 'kingdoms', null, system)).outcome,
      judge: (kingdoms) => session.call('objectives', { kingdoms }, system),
    });
  }

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
  });

  const pool = new CommandPool({
    shared,
    gameUrl: gameUrl.href,
    commandModules,
    info,
    timings,
    ...(options.poolThreads === undefined ? {} : { threads: options.poolThreads }),
    ...(options.poolMemoryMb === undefined ? {} : { memoryMb: options.poolMemoryMb }),
    log,
    hooks: {
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
      session: (name, input, caller) => session.call(name, input, caller),
      events: (name, input, caller, slot) => events.poolCall(name, input, caller, slot),
    },
  });

  // In multi-agent mode only agents.json credentials exist: the legacy token answers 401.
  const credentials = new CredentialTable(session.credentials);
  const admission = new Admission(config.Bridge.max_concurrent_requests, timings.admissionWaitMs);
  // decisions §8 and §13: kept answers of keyed requests, on the main loop; gone with the process.
  const idempotency = new IdempotencyStore({ budgetBytes: config.Bridge.idempotency_budget_mb * 1024 * 1024 });
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

  // decisions §9: the series, read from what the parts above already keep.
  const metrics =
    options.metrics === false
      ? null
      : createMetrics({
          shared,
          admission,
          events: events.hub,
          multiAgent: session.multiAgent,
          idempotentReplays: () => idempotency.replays,
        });

  let port = config.Bridge.port;
  const app = createApp({
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
    capabilities,
    events,
    ...(metrics ? { metrics } : {}),
    view: viewRoutes(() => port),
    execute: (def, args, caller, slot) => execute(def, args, caller, game, pool, slot),
    idempotency,
  });

  let server: Server;
  try {
    server = await listen({ fetch: app.fetch, port, log });
  } catch (err) {
    killSwitch.stop();
    agentsWatch.stop();
    await events.stop();
    await pool.destroy();
    await game.stop();
    throw err;
  }
  port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  runtime.listening(url, port);
  log.info({ url, config: loaded.path, mod_version: MOD_VERSION, game: fileURLToPath(gameUrl) }, 'bridge listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // decisions §1: stop accepting, answer what waits with BUSY, let started actions finish
      // (at most the grace period), then close the threads.
      Atomics.store(shared.control, kStopping, 1);
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      admission.close();
      // Every event stream ends cleanly; waiting recv_events answer with what they have.
      const eventsStopped = events.stop();
      game.closeQueue();
      await Promise.race([waitUntil(() => admission.inUse === 0), sleep(timings.shutdownGraceMs)]);
      killSwitch.stop();
      agentsWatch.stop();
      session.stop();
      await eventsStopped;
      await game.stop();
      await pool.destroy();
      server.closeAllConnections();
      await closed;
      metrics?.stop();
      runtime.release();
      log.info('bridge closed');
      if (!options.logger) log.flush();
    })();
    return closing;
  };

  return {
    url,
    port,
    token: config.Bridge.token,
    configPath: loaded.path,
    info,
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
    close,
  };
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

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

async function waitUntil(predicate: () => boolean): Promise<void> {
  while (!predicate()) await sleep(10);
}
