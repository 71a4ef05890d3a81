// The bridge under test, in its own process. argv[2]: JSON { configDir, game?, gameOptions?, timings? }.
// IPC: 'stats' → { stats, rss, counters }, 'gc' → after a full GC, 'close' → exits.
import { startBridge } from '../../src/bridge.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as { configDir: string; game?: string; counters?: boolean; gameOptions?: Record<string, unknown> };
const counters = options.counters ? new SharedArrayBuffer(32) : undefined;
const bridge = await startBridge({
  configDir: options.configDir,
  port: 0,
  ...(options.game ? { game: options.game } : {}),
  gameOptions: { ...options.gameOptions, ...(counters ? { counters } : {}) },
  logDestination: { write: () => true } as never,
});
process.send!({ type: 'ready', url: bridge.url, token: bridge.token });
process.on('message', async (message: { type: string }) => {
  if (message.type === 'stats') {
    process.send!({ type: 'stats', stats: bridge.stats(), rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, counters: counters ? [...new Int32Array(counters)] : null });
  } else if (message.type === 'gc') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ type: 'gc' });
  } else if (message.type === 'close') {
    await bridge.close();
    process.exit(0);
  }
});
