// One teardown list for the bridge (decisions §1): a start that fails at a step unwinds exactly the
// parts started before it, last first, and close() unwinds the whole list in the order decisions §1
// needs: stop accepting (BUSY to waiters, grace for started actions), the watchers and the session,
// the events, the game thread before the pool, the last connections, the runtime file, the log.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startBridge, type BridgeOptions } from '../../src/bridge.ts';
import { runtimePath } from '../../src/shared/runtime-file.ts';
import { tempDir, TINY_GAME, writeConfig } from '../helpers/bridge.ts';
import { captureLog } from '../helpers/log.ts';
import { fixture } from '../helpers/paths.ts';

/** The parts unwound, in order, read from the bridge's debug lines. */
const closed = (lines: Array<Record<string, unknown>>) =>
  lines.filter((line) => line.level === 20 && line.msg === `closing: ${String(line.part)}`).map((line) => line.part);

async function failedStart(t: Test, options: BridgeOptions, configure: (dir: string) => void = () => {}) {
  const configDir = tempDir();
  writeConfig(configDir);
  configure(configDir);
  const { log, lines } = captureLog();
  log.level = 'debug';
  let error = new Error('the start did not fail') as Error & { code?: string };
  try {
    const bridge = await startBridge({ game: TINY_GAME, port: 0, poolThreads: 1, ...options, configDir, logger: log });
    t.teardown(() => bridge.close());
    t.fail('the start fails');
  } catch (err) {
    error = err as Error & { code?: string };
  }
  t.notOk(existsSync(runtimePath(configDir)), 'the runtime file is gone: another bridge may start here');
  t.notOk(
    lines.some((line) => line.msg === 'bridge closed'),
    'no "bridge closed": it never opened',
  );
  return { error, order: closed(lines), lines };
}

const AFTER_GAME_THREAD = ['turn timer', 'events', 'game thread', 'runtime file', 'log'];
const BEFORE_HTTP = ['metrics', 'kill switch', 'agents.json watch', 'turn timer', 'events', 'game thread', 'pool', 'runtime file', 'log'];

t.test('a start refused before anything runs (invalid agents.json) unwinds the runtime file and the log only', async (t) => {
  const { error, order } = await failedStart(t, {}, (dir) => writeFileSync(join(dir, 'agents.json'), '{ "agents": "nobody" }', { mode: 0o600 }));
  t.match(error.message, /agents\.json/);
  t.same(order, ['runtime file', 'log']);
});

t.test('a game thread that never becomes ready: nothing after it was started, nothing of it is left', async (t) => {
  const { error, order } = await failedStart(t, { game: fixture('game-failing-init.ts') });
  t.match(error.message, /this game refuses to start/);
  t.same(order, ['runtime file', 'log'], 'the places kept for the pool and the connections stay empty');
});

t.test('a pool that cannot start: the session, the events and the game thread unwind, last first', async (t) => {
  const { error, order } = await failedStart(t, { poolThreads: -1 });
  t.match(error.message, /minThreads/);
  t.same(order, AFTER_GAME_THREAD);
});

t.test('a port already taken: every part but the server unwinds, the game thread before the pool', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const { error, order } = await failedStart(t, { port: (blocker.address() as { port: number }).port });
  t.match(error, { code: 'EADDRINUSE' });
  t.same(order, BEFORE_HTTP);
});

t.test('close() unwinds the same list, starting by no longer accepting, and says so last', async (t) => {
  const configDir = tempDir();
  writeConfig(configDir);
  const { log, lines } = captureLog();
  log.level = 'debug';
  const bridge = await startBridge({ game: TINY_GAME, port: 0, poolThreads: 1, configDir, logger: log });
  t.ok(existsSync(runtimePath(configDir)));
  await Promise.all([bridge.close(), bridge.close()]);
  t.same(closed(lines), ['accepting', ...BEFORE_HTTP.slice(0, 7), 'http connections', 'runtime file', 'log'], 'each part once, in order');
  t.equal(lines.at(-1)?.msg, 'bridge closed', 'the last line');
  t.notOk(existsSync(runtimePath(configDir)));
  await t.rejects(fetch(`${bridge.url}/health`), 'no longer listening');
});
