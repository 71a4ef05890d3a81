import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startBridge } from '../../src/index.ts';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';
import { REPO_ROOT, treeModule } from '../helpers/paths.ts';

const SHEEP = treeModule('examples/node-game/game.ts');

t.test('startBridge() with a custom game module, and close()', async (t) => {
  const dir = tempDir();
  const bridge = await startBridge({ configDir: dir, port: 0, game: SHEEP, logDestination: { write: () => {} } as never });
  t.match(bridge.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(bridge.token, /^[A-Za-z0-9]{48}$/);
  t.equal(bridge.configPath, join(dir, 'bridge.toml'));
  const res = await fetch(`${bridge.url}/health`, { headers: { authorization: `Bearer ${bridge.token}` } });
  t.equal(((await res.json()) as any).game_version, 'sheep-field-1.0.0');
  await bridge.close();
  await bridge.close(); // idempotent
  await t.rejects(fetch(`${bridge.url}/health`));
});

t.test('a game with its own loop calls drainFrame(): commands run between its updates', async (t) => {
  const b = await startTestBridge(t, { game: SHEEP });
  const first = await b.cmd('get_world_state');
  t.equal(first.status, 200);
  t.match(first.body.result, { width: 64, height: 64, population_alive: 20 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const second = await b.cmd('get_world_state');
  t.ok(second.body.tick > first.body.tick, 'the game ticks on its own loop');
  t.same((await b.cmd('pause')).body.result, { previous_paused: false, paused: true });
  const caps = (await (await b.fetch('/capabilities')).json()) as any;
  t.notOk(
    caps.commands.some((c: { name: string }) => c.name === 'list_tiles'),
    'commands the game lacks functions for are absent',
  );
});

t.test('the example embeds the bridge in a Node-hosted game and answers the README curl', async (t) => {
  const dir = tempDir();
  // As its header says to run it: from sources under tsx.
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'examples/node-game/main.ts'), '--config-dir', dir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`example exited early with ${code}`)));
  });
  const token = /token = "([A-Za-z0-9]+)"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  const res = await fetch(`${url}/cmd`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"name":"get_world_state"}',
  });
  t.equal(res.status, 200);
  t.match(await res.json(), { ok: true, result: { width: 64, population_alive: 20 } });
  t.notMatch(stdout, token, 'the token is not printed');
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  t.equal(await exited, 0, 'exits 0 on SIGINT');
});
