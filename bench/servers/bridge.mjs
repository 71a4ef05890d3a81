// The bridge under test, in its own process, from the compiled build (dist/, what npm start runs):
// plain JavaScript, so no tsx loader inflates its memory. It logs as `npm start` does (src/main.ts):
// its own logger at its default level, to stderr, which bench/lib/processes.ts sends to a file.
// argv[2]: JSON { configDir, game?, counters?, gameOptions?, metrics?, timings? }. IPC: 'stats' →
// { stats, rss, heap, counters }, 'gc' → after a full GC, 'close' → exits, 'profile-start' /
// 'profile-stop' → the main thread's CPU profile between them (bench/profile.ts).
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';

// GCB_BENCH_DIST: another build's dist/ (bench/profile.ts --versus compares a change with it).
const dist = process.env.GCB_BENCH_DIST ? pathToFileURL(`${process.env.GCB_BENCH_DIST}/`) : new URL('../../dist/', import.meta.url);
const { startBridge } = await import(new URL('src/bridge.js', dist).href);
const { createLogger, logCrashes } = await import(new URL('src/log/logger.js', dist).href);

const options = JSON.parse(process.argv[2] ?? '{}');
const counters = options.counters ? new SharedArrayBuffer(32) : undefined;
let profiler;
const logger = createLogger();
logCrashes(logger);
const bridge = await startBridge({
  configDir: options.configDir,
  port: 0,
  ...(options.game ? { game: options.game } : {}),
  gameOptions: { ...options.gameOptions, ...(counters ? { counters } : {}) },
  logger,
  ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  ...(options.timings ? { timings: options.timings } : {}),
});
process.send({ type: 'ready', url: bridge.url, token: bridge.token });
// The bench that started this bridge is gone (it crashed or was killed): so is the bridge, rather
// than serving nobody and taking CPU from the next run (two such were found after bench:profile
// failed to start its --versus build).
process.on('disconnect', () => process.exit(0));
process.on('message', async (message) => {
  if (message.type === 'stats') {
    const memory = process.memoryUsage();
    process.send({ type: 'stats', stats: bridge.stats(), rss: memory.rss, heap: memory.heapUsed, counters: counters ? [...new Int32Array(counters)] : null });
  } else if (message.type === 'gc') {
    globalThis.gc?.();
    process.send({ type: 'gc' });
  } else if (message.type === 'profile-start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    // 100 µs: a request costs tens of µs, the default 1 ms would see few of them.
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
    process.send({ type: 'profile-start' });
  } else if (message.type === 'profile-stop') {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    process.send({ type: 'profile-stop', profile });
  } else if (message.type === 'close') {
    await bridge.close();
    process.exit(0);
  }
});
