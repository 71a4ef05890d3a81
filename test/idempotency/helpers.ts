// The bridges the idempotency HTTP tests share: one with a single slot and a game whose pause stalls
// its frame for 1.5 s, so a keyed request is still running while the test retries or drops it; and
// one with a small idempotency budget, in legacy or multi-agent mode.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { fixture } from '../helpers/paths.ts';
import { startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { token } from '../multi-agent/helpers.ts';

const BATCH_COMMANDS = fixture('batch-commands.ts');
export const IDEMPOTENCY_COMMANDS = fixture('idempotency-commands.ts');

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

export type Answer = Awaited<ReturnType<TestBridge['cmd']>>;

/**
 * A bridge with `[Bridge] idempotency_budget_mb = budgetMb` and the commands of
 * idempotency-commands.ts: legacy mode on the tiny game, or with `agents` (agents.json) on the
 * sandbox. `as` calls as an agent (the legacy token without one), with an Idempotency-Key if given.
 */
export async function budgetBridge(t: Parameters<typeof startTestBridge>[0], budgetMb: number, agents?: Record<string, unknown>) {
  const configDir = tempDir();
  writeFileSync(join(configDir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(24)}${'e'.repeat(24)}"\nidempotency_budget_mb = ${budgetMb}\n`, {
    mode: 0o600,
  });
  if (agents) writeFileSync(join(configDir, 'agents.json'), JSON.stringify(agents), { mode: 0o600 });
  const b = await startTestBridge(t, { configDir, commandModules: [IDEMPOTENCY_COMMANDS], ...(agents ? { game: SANDBOX_GAME } : {}) });
  const as = (agentId: string | null, name: string, args: unknown, key?: string): Promise<Answer> => {
    const headers: Record<string, string> = agentId === null ? {} : { authorization: `Bearer ${token(agentId)}` };
    if (key !== undefined) headers['idempotency-key'] = key;
    return b.cmd(name, args, { headers });
  };
  return { b, as };
}
