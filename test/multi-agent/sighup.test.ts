// decisions §10: SIGHUP reads agents.json at once, over a real process whose poll is set far away
// (an hour), so only the signal can have applied the file.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { TINY_GAME, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { nodeArgs } from '../helpers/paths.ts';
import { agent, token } from './helpers.ts';

t.setTimeout(120_000);

t.test('SIGHUP applies a changed agents.json at once; a bad one is refused with one warning', async (t) => {
  const dir = tempDir('gcb-sighup-');
  writeConfig(dir);
  const write = (json: unknown) => writeFileSync(join(dir, 'agents.json'), typeof json === 'string' ? json : JSON.stringify(json));
  write({ agents: [agent('dm', 'god')] });
  const child = spawn(process.execPath, nodeArgs('test/fixtures/bridge-process.ts', dir, TINY_GAME.href), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GCB_TEST_POOL_THREADS: '1', GCB_TEST_RELOAD_MS: '3600000' },
  });
  t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await until(() => /listening on /.test(out), 60_000, 'the bridge process to start');
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
  const whoami = async (id: string) =>
    (
      await fetch(`${url}/cmd`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token(id)}`, 'content-type': 'application/json' },
        body: '{"name":"whoami"}',
      })
    ).status;

  t.equal(await whoami('dm'), 200);
  t.equal(await whoami('late'), 401);
  write({ agents: [agent('dm', 'god'), agent('late', 'observer')] });
  child.kill('SIGHUP');
  await until(() => /agents\.json applied/.test(err), 30_000, 'the reload line');
  t.equal(await whoami('late'), 200, 'the added agent gets in after SIGHUP, with no poll due for an hour');

  write('{ not json');
  child.kill('SIGHUP');
  await until(() => /agents\.json not applied/.test(err), 30_000, 'the warning');
  t.equal(await whoami('late'), 200, 'the last good file stays');
  t.equal(err.match(/agents\.json not applied/g)!.length, 1, 'one warning line');
  t.match(err, new RegExp(`${join(dir, 'agents.json').replaceAll('.', '\\.')}: not valid JSON`), 'it names the file and why');

  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
});
