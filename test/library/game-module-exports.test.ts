// A game module without a required export does not start, and the refusal names what is missing
// (not "TypeError: game.currentTick is not a function" from deep inside the first frame).
import t from 'tap';
import { startBridge } from '../../src/index.ts';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';

const quiet = { write: () => {} } as never;

t.test('a missing currentTick() is named', async (t) => {
  const started = startBridge({ configDir: tempDir(), port: 0, game: fixture('game-without-tick.ts'), logDestination: quiet, poolThreads: 1 });
  await t.rejects(started, { message: /game-without-tick\.[jt]s does not export currentTick\(\)/ });
  const message = await started.catch((err: Error) => err.message);
  t.notMatch(message, /is not a function|TypeError/, 'no TypeError from inside the bridge');
  t.match(message, /init\(options, host\), update\(dtMs\).*currentTick\(\)/, 'it says what a game exports');
  t.notMatch(message, /default export/, 'no default-export hint when there is none');
});

t.test('functions on a default export: every required one is named, with a hint', async (t) => {
  const started = startBridge({ configDir: tempDir(), port: 0, game: fixture('game-default-export.ts'), logDestination: quiet, poolThreads: 1 });
  await t.rejects(started, { message: /does not export init\(\), update\(\), currentTick\(\).*default export, but the bridge reads named exports only/ });
});

t.test('a game with its own loop needs no update()', async (t) => {
  const b = await startTestBridge(t, { game: fixture('game-own-loop.ts') });
  const health = (await (await b.fetch('/health')).json()) as { game_version: string };
  t.equal(health.game_version, 'own-loop-1.0.0');
});
