// The game thread: the one owner of the world. It loads the game module, runs the frame loop
// (or lets a game with its own loop call drainFrame), and drains the dispatcher queue each frame.
import { parentPort, workerData } from 'node:worker_threads';
import { INTERNAL_COMMANDS } from '../src/commands/internal.ts';
import { loadCommands } from '../src/commands/load.ts';
import { createDrainer } from '../src/dispatch/drain.ts';
import { createCollector } from '../src/events/collector.ts';
import { checkDeclaredKinds, gameEmittableKinds } from '../src/events/kinds.ts';
import type { GameHost, GameModule } from '../src/shared/game-module.ts';
import { kStopping, viewSharedState } from '../src/shared/layout.ts';
import { importModule } from '../src/shared/modules.ts';
import type { GameThreadControl, GameThreadData, GameThreadEvent } from '../src/shared/protocol.ts';

const data = workerData as GameThreadData;
const shared = viewSharedState(data.sharedBuffer);
const post = (event: GameThreadEvent) => parentPort!.postMessage(event);

let stop!: () => void;
const stopped = new Promise<void>((resolve) => (stop = resolve));

async function main(): Promise<void> {
  const exports = await importModule(data.gameUrl);
  const missing = missingExports(exports);
  if (missing.length > 0) return post({ type: 'fatal', message: missingExportsMessage(exports, missing) });
  const game = exports as unknown as GameModule;
  const commands = await loadCommands(data.commandModules);
  // decisions §7: host.emit feeds the collector; the drainer sends its batches on the dispatcher
  // port, with the answers, so the main loop sees them in the order they were emitted and answered.
  const events = createCollector({
    kinds: gameEmittableKinds(checkDeclaredKinds(game.eventKinds).kinds),
    currentTick: () => game.currentTick(),
    send: (batch) => data.actionPort.postMessage(batch),
    warn: (msg, detail) => post({ type: 'log', level: 'warn', msg, detail }),
  });
  const host: GameHost = { drainFrame: () => drainer.drainFrame(), stopped, emit: events.emit };
  await game.init(data.init, host);
  const drainer = createDrainer({
    port: data.actionPort,
    shared,
    game,
    commands: new Map([...commands, ...INTERNAL_COMMANDS].map((def) => [def.name, def] as const)),
    timings: data.timings,
    events,
  });
  const functions = Object.keys(game).filter((key) => typeof (game as unknown as Record<string, unknown>)[key] === 'function');
  const selfDriven = typeof game.run === 'function';
  // Every game thread starts on a fresh world: at startup, and after a restart (decisions §7).
  events.emit('world_generated', { ...worldSize(game), seed: data.init.seed, cause: data.restarted ? 'restart' : 'startup' });
  drainer.drainFrame(); // publish the first tick before anyone asks
  post({ type: 'ready', functions, version: String(game.version ?? '0.0.0'), selfDriven, eventKinds: game.eventKinds, eventFog: game.eventFog });

  parentPort!.on('message', (message: GameThreadControl) => {
    if (message.type === 'stop') {
      Atomics.store(shared.control, kStopping, 1);
      stop();
    }
  });

  if (selfDriven) {
    await game.run!(host);
  } else {
    runFrameLoop(game, drainer.drainFrame);
  }
  await stopped;
  drainer.jobs.cancelAll();
  post({ type: 'stopped' });
}

function worldSize(game: GameModule): { width: number; height: number } | undefined {
  try {
    return game.worldSize?.();
  } catch {
    return undefined;
  }
}

/**
 * The functions every game module exports (docs/game-module.md), checked before init so a missing
 * one is named instead of surfacing as "game.currentTick is not a function". `update` is not
 * needed by a game that runs its own loop: the bridge never calls it then.
 */
function missingExports(exports: Record<string, unknown>): string[] {
  const required = typeof exports.run === 'function' ? ['init', 'currentTick'] : ['init', 'update', 'currentTick'];
  return required.filter((name) => typeof exports[name] !== 'function');
}

function missingExportsMessage(exports: Record<string, unknown>, missing: readonly string[]): string {
  const file = new URL(data.gameUrl).pathname.split('/').pop();
  const list = missing.map((name) => `${name}()`).join(', ');
  let message = `the game module ${file} does not export ${list}: a game exports init(options, host), update(dtMs) (unless it exports run(host)) and currentTick(), as named exports (docs/game-module.md)`;
  // A common slip: `export default { init, update, ... }` instead of named exports.
  if (typeof exports.default === 'object' && exports.default !== null) message += '; it has a default export, but the bridge reads named exports only';
  return message;
}

/**
 * The bridge's own frame loop at `[Game] fps`. Frames are scheduled against absolute times so the
 * rate does not drift; after a stall the loop resumes at the next frame instead of bursting.
 */
function runFrameLoop(game: GameModule, drainFrame: (updateMs: number) => void): void {
  const period = 1000 / data.fps;
  let last = performance.now();
  let next = last + period;
  const frame = () => {
    if (Atomics.load(shared.control, kStopping) === 1) return;
    const now = performance.now();
    try {
      game.update(now - last);
    } catch (err) {
      post({ type: 'log', level: 'error', msg: `game update threw: ${(err as Error)?.message ?? String(err)}` });
    }
    last = now;
    drainFrame(performance.now() - now);
    const after = performance.now();
    next += period;
    // Frames keep to a fixed grid, so timer jitter averages out to exactly fps. A frame that
    // fell more than a whole period behind (a stall) resyncs instead of bursting to catch up.
    if (after - next > period) next = after + period;
    setTimeout(frame, Math.max(0, next - after));
  };
  setTimeout(frame, period);
}

main().catch((err: unknown) => {
  post({ type: 'fatal', message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
});
