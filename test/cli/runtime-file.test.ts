// Issue 10: a running bridge names itself in bridge.runtime.json beside bridge.toml, clients find it
// there, and a second bridge in the same config dir is refused. Over real processes.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createClient } from '../../src/client/index.ts';
import { readBridgeConfig } from '../../src/client/config.ts';
import { tempDir } from '../helpers/bridge.ts';
import { fixture, nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

// Three real bridge processes start and stop here, one after another.
t.setTimeout(120_000);

const TINY = fileURLToPath(fixture('tiny-game.ts'));

function start(dir: string) {
  const child = spawn(process.execPath, nodeArgs('src/main.ts', '--config-dir', dir, '--port', '0', '--game', TINY), {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (url) resolve(url);
    });
    void exited.then((code) =>
      reject(
        new Error(
          `exited ${code}: ${stderr
            .split('\n')
            .filter((l) => !l.startsWith('{'))
            .join(' ')}`,
        ),
      ),
    );
  });
  listening.catch(() => {});
  return { child, exited, listening, err: () => stderr, out: () => stdout };
}

t.test('written when listening (0600, no token), found by clients, refused twice, removed on a clean stop', async (t) => {
  const dir = tempDir();
  const first = start(dir);
  t.teardown(() => void (first.child.exitCode === null && first.child.kill('SIGKILL')));
  const url = await first.listening;
  const path = join(dir, 'bridge.runtime.json');
  const info = JSON.parse(readFileSync(path, 'utf8'));
  t.match(info, { pid: first.child.pid, url, port: Number(new URL(url).port), mod_version: /^\d+\.\d+\.\d+$/ });
  t.ok(!Number.isNaN(Date.parse(info.started_at)), 'started_at is a date');
  t.equal(statSync(path).mode & 0o777, 0o600);
  const token = /token = "([A-Za-z0-9]+)"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  t.notMatch(readFileSync(path, 'utf8'), token, 'no token in the runtime file');

  // bridge.toml still says 8723: the clients go where the bridge really listens.
  t.match(readBridgeConfig(dir), { url, source: 'runtime' });
  const health = await createClient({ configDir: dir }).health();
  t.equal(health.ok, true, 'createClient({ configDir }) reaches it');

  const second = start(dir);
  t.teardown(() => void (second.child.exitCode === null && second.child.kill('SIGKILL')));
  t.equal(await second.exited, 2, 'the second bridge exits 2');
  t.equal(second.out(), '', 'it never listened');
  const line = second.err().trim().split('\n').at(-1)!;
  t.match(line, `another bridge (pid ${first.child.pid}) is already running with this config dir at ${url}`);
  t.ok(existsSync(path), 'the first one keeps its file');

  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0);
  t.notOk(existsSync(path), 'removed on a clean stop');
  t.match(readBridgeConfig(dir), { url: 'http://127.0.0.1:8723', source: 'config' }, 'back to bridge.toml');
});

t.test('a file left by a killed bridge (dead pid) is ignored by clients and replaced by the next bridge', async (t) => {
  const dir = tempDir();
  const first = start(dir);
  t.teardown(() => void (first.child.exitCode === null && first.child.kill('SIGKILL')));
  await first.listening;
  first.child.kill('SIGKILL');
  await first.exited;
  const path = join(dir, 'bridge.runtime.json');
  t.ok(existsSync(path), 'kill -9 leaves the file');
  t.match(readBridgeConfig(dir), { source: 'config' }, 'a dead pid: clients fall back to bridge.toml');

  const next = start(dir);
  t.teardown(() => void (next.child.exitCode === null && next.child.kill('SIGKILL')));
  const url = await next.listening;
  t.match(JSON.parse(readFileSync(path, 'utf8')), { pid: next.child.pid, url });
  next.child.kill('SIGINT');
  t.equal(await next.exited, 0);
  t.notOk(existsSync(path));
});

t.test('a garbled runtime file is not trusted', async (t) => {
  const dir = tempDir();
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\nport = 9555\ntoken = "${'k'.repeat(48)}"\n`);
  for (const text of ['{', '{"pid": "1"}', `{"pid": 1, "url": "http://evil.example:80", "port": 80, "mod_version": "1.0.0"}`]) {
    writeFileSync(join(dir, 'bridge.runtime.json'), text);
    t.match(readBridgeConfig(dir), { url: 'http://127.0.0.1:9555', source: 'config' }, text);
  }
});
