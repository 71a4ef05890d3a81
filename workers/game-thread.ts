// The game thread: the one owner of the world. It loads the game module, runs the frame loop
// (or lets a game with its own loop call drainFrame), and drains the dispatcher queue each frame.
// Under the lockstep clock (decisions §12) it runs no frames: it drains each command as it arrives.
import { setImmediate as turn } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { INTERNAL_COMMANDS } from '../src/commands/internal.ts';
import { loadCommands } from '../src/commands/load.ts';
import { createDrainer } from '../src/dispatch/drain.ts';
import { createCollector } from '../src/events/collector.ts';
import { checkDeclaredKinds, gameEmittableKinds } from '../src/events/kinds.ts';
import type { GameHost, GameModule } from '../src/shared/game-module.ts';
import { LIMITS } from '../src/limits.ts';
import { kQueued, kStopping, viewSharedState } from '../src/shared/layout.ts';
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
  const refusal = data.clock === 'lockstep' ? lockstepRefusal(exports) : null;
  if (refusal !== null) return post({ type: 'fatal', message: refusal });
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
    clockMode: data.clock,
    maxSavepoints: data.maxSavepoints,
    warn: (msg) => post({ type: 'log', level: 'warn', msg }),
    bridgeCommands: new Set(INTERNAL_COMMANDS.map((def) => def.name)),
  });
  const functions = Object.keys(game).filter((key) => typeof (game as unknown as Record<string, unknown>)[key] === 'function');
  const selfDriven = typeof game.run === 'function';
  // Every game thread starts on a fresh world: at startup, and after a restart (decisions §7).
  events.emit('world_generated', { ...worldSize(game), seed: data.init.seed, cause: data.restarted ? 'restart' : 'startup' });
  // Publish the first tick before anyone asks.
  if (data.clock === 'lockstep') drainer.drainQueued();
  else drainer.drainFrame();
  post({ type: 'ready', functions, version: String(game.version ?? '0.0.0'), selfDriven, eventKinds: game.eventKinds, eventFog: game.eventFog });

  parentPort!.on('message', (message: GameThreadControl) => {
    if (message.type === 'stop') {
      Atomics.store(shared.control, kStopping, 1);
      Atomics.notify(shared.control, kQueued); // a lockstep thread waiting for work wakes to stop
      stop();
    }
  });

  if (data.clock === 'lockstep') {
    void runLockstep(drainer);
  } else if (selfDriven) {
    await game.run!(host);
  } else {
    runFrameLoop(game, drainer.drainFrame);
  }
  await stopped;
  drainer.jobs.cancelAll();
  // Last writes (a record's lines still on their way to its file), as long as the bridge waits.
  await drainer.clock.close();
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
 * decisions §12: why this game cannot run under the lockstep clock, or null. Its world must move only
 * through `step`, so the game needs advance() and must leave the loop to the bridge.
 */
function lockstepRefusal(exports: Record<string, unknown>): string | null {
  const file = new URL(data.gameUrl).pathname.split('/').pop();
  if (typeof exports.run === 'function') {
    return `the game module ${file} runs its own frame loop (it exports run(host)), so it cannot run under the lockstep clock; use clock = "realtime" in bridge.toml, or drop run() and export update() and advance(ticks)`;
  }
  if (typeof exports.advance !== 'function') {
    return `the game module ${file} does not export advance(ticks), which the lockstep clock needs to move the world (step); export it (docs/game-module.md) or use clock = "realtime" in bridge.toml`;
  }
  return null;
}

/**
 * decisions §12: the lockstep loop. No frame timer and no update(): the world moves only through
 * `step`. The thread sleeps until an action is queued (the main loop notifies kQueued) and drains it
 * at once, 32 entries (256 items) at a time like a frame, yielding a turn between drains so the
 * 'stop' message and settled pulsed runs get theirs.
 */
async function runLockstep(drainer: { drainQueued(): void; readonly carrying: boolean }): Promise<void> {
  const control = shared.control;
  while (Atomics.load(control, kStopping) === 0) {
    if (Atomics.load(control, kQueued) === 0 && !drainer.carrying) {
      const wait = waitAsync(control, kQueued, 0, LIMITS.lockstepIdleWaitMs);
      if (wait.async) await wait.value;
      continue; // look again: stopping, or still nothing queued (the wait timed out)
    }
    try {
      drainer.drainQueued();
    } catch (err) {
      post({ type: 'log', level: 'error', msg: `a lockstep drain threw: ${(err as Error)?.message ?? String(err)}` });
    }
    await turn();
  }
}

/** Atomics.waitAsync (Node 16+), which the ES2023 lib does not declare yet. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

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
