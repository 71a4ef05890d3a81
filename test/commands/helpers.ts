// Shared by the command tests: a real bridge on the sandbox world, and expectations on envelopes.
import type { Test } from 'tap';
import { SANDBOX_GAME, type BridgeOptions } from '../../src/bridge.ts';
import { startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';

export { SANDBOX_GAME };

export { fixture } from '../helpers/paths.ts';

export async function startSandbox(t: Test, options: BridgeOptions & { config?: Parameters<typeof writeConfig>[1] } = {}): Promise<TestBridge> {
  const { config, ...rest } = options;
  const configDir = rest.configDir ?? tempDir('gcb-cmd-');
  if (config) writeConfig(configDir, config);
  return startTestBridge(t, { game: SANDBOX_GAME, ...rest, configDir });
}

type Reply = Awaited<ReturnType<TestBridge['cmd']>>;

/** 200 and the result. */
export async function ok(t: Test, b: TestBridge, name: string, args?: unknown): Promise<any> {
  const reply = await b.cmd(name, args);
  t.equal(reply.status, 200, `${name} ${JSON.stringify(args ?? {}).slice(0, 120)} → 200${reply.status === 200 ? '' : ` (got ${JSON.stringify(reply.body)})`}`);
  return reply.body.result;
}

/** The error envelope with this status and code; returns `error`. */
export async function fails(t: Test, b: TestBridge, name: string, args: unknown, status: number, code: string): Promise<any> {
  const reply: Reply = await b.cmd(name, args);
  t.equal(reply.status, status, `${name} ${JSON.stringify(args ?? {}).slice(0, 120)} → ${status} ${code}`);
  t.equal(reply.body?.error?.code, code, `${name}: ${reply.body?.error?.message ?? JSON.stringify(reply.body)}`);
  t.equal(reply.body?.ok, false);
  t.equal(reply.body?.error?.command, name);
  return reply.body?.error ?? {};
}

/** GAME_REJECTED carries `exception` {type, message, stack_top}. */
export function checkException(t: Test, error: any): void {
  t.match(error.exception, { type: String, message: String, stack_top: String }, 'GAME_REJECTED carries exception');
  t.ok(error.exception?.message.length > 0);
}
