// The bridge the idempotency HTTP tests share: one slot, and a game whose pause stalls its frame
// for 1.5 s, so a keyed request is still running while the test retries or drops it.
import { COUNTER } from '../fixtures/tiny-game.ts';
import { fixture } from '../helpers/paths.ts';
import { startTestBridge, tempDir, writeConfig } from '../helpers/bridge.ts';

const BATCH_COMMANDS = fixture('batch-commands.ts');

export const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });

export async function stalledBridge(t: Parameters<typeof startTestBridge>[0], timings: Record<string, number> = {}) {
  const configDir = tempDir();
  writeConfig(configDir, { maxConcurrent: 1 });
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, {
    configDir,
    commandModules: [BATCH_COMMANDS],
    gameOptions: { counters, stallOnPauseMs: 1500 },
    timings: { admissionWaitMs: 300, ...timings },
  });
  return { b, pauses: () => Atomics.load(view, COUNTER.pause) };
}
