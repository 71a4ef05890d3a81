// The bridge under test, in its own process, from the compiled build (dist/, what npm start runs):
// plain JavaScript, so no tsx loader inflates its memory. argv[2]: JSON { configDir, game?, counters?,
// gameOptions?, metrics? }. IPC: 'stats' → { stats, rss, heap, counters }, 'gc' → after a full GC, 'close' → exits.
import { startBridge } from '../../dist/src/bridge.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const counters = options.counters ? new SharedArrayBuffer(32) : undefined;
const bridge = await startBridge({
  configDir: options.configDir,
  port: 0,
  ...(options.game ? { game: options.game } : {}),
  gameOptions: { ...options.gameOptions, ...(counters ? { counters } : {}) },
  logDestination: { write: () => true },
  ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
});
process.send({ type: 'ready', url: bridge.url, token: bridge.token });
process.on('message', async (message) => {
  if (message.type === 'stats') {
    const memory = process.memoryUsage();
    process.send({ type: 'stats', stats: bridge.stats(), rss: memory.rss, heap: memory.heapUsed, counters: counters ? [...new Int32Array(counters)] : null });
  } else if (message.type === 'gc') {
    globalThis.gc?.();
    process.send({ type: 'gc' });
  } else if (message.type === 'close') {
    await bridge.close();
    process.exit(0);
  }
});
