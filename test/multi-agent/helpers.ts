// A sandbox bridge in multi-agent mode: writes agents.json, then calls as any agent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { SANDBOX_GAME, type BridgeOptions } from '../../src/bridge.ts';
import { startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';

export const token = (id: string) => `agent-${id}-token-0123456789-ABCDEFGHJK`;

export interface Agents {
  b: TestBridge;
  as(id: string, name: string, args?: unknown): Promise<{ status: number; body: any }>;
}

export async function startAgents(
  t: Test,
  agentsJson: Record<string, unknown>,
  options: BridgeOptions & { config?: Parameters<typeof writeConfig>[1] } = {},
): Promise<Agents> {
  const { config, ...rest } = options;
  const dir = tempDir('gcb-agents-');
  writeConfig(dir, config ?? {});
  writeFileSync(join(dir, 'agents.json'), JSON.stringify(agentsJson));
  const b = await startTestBridge(t, { game: SANDBOX_GAME, ...rest, configDir: dir });
  return {
    b,
    as: (id, name, args) => b.cmd(name, args, { headers: { authorization: `Bearer ${token(id)}` } }),
  };
}

export const agent = (id: string, role: string, extra: Record<string, unknown> = {}) => ({ id, token: token(id), role, ...extra });

/** Replaces agents.json (an object, or raw text for broken files). */
export const writeAgents = (dir: string, json: Record<string, unknown> | string) =>
  writeFileSync(join(dir, 'agents.json'), typeof json === 'string' ? json : JSON.stringify(json));

/** The events of kind `kind` an agent sees (recv_events, no wait). */
export async function eventsOf(ma: Agents, kind: string, as = 'dm'): Promise<Array<Record<string, any>>> {
  const answer = await ma.as(as, 'recv_events', { kinds: [kind] });
  return answer.body.result?.items ?? [];
}
