// `npm start -- --lockstep` (decisions §12) as a subprocess: the clock whatever bridge.toml says, and
// one clear line for a game that cannot be stepped.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/bridge.ts';
import { fileURLToPath } from 'node:url';
import { fixture, nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

const TINY = fileURLToPath(fixture('tiny-game.ts'));

function run(args: string[]) {
  const child = spawn(process.execPath, nodeArgs('src/main.ts', ...args), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('--lockstep: the lockstep clock whatever bridge.toml says; a game that cannot be stepped is one clear line', async (t) => {
  const dir = tempDir();
  const p = run(['--config-dir', dir, '--port', '0', '--lockstep', '--game', fileURLToPath(fixture('research-game.ts'))]);
  t.teardown(() => void (p.child.exitCode === null && p.child.kill('SIGKILL')));
  await waitFor(() => p.out().includes('\n'));
  const token = /token = "([A-Za-z0-9]{48})"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())![1]!;
  const health = (await (await fetch(`${url}/health`, { headers: { authorization: `Bearer ${token}` } })).json()) as { clock: string; tick: number };
  t.match(health, { clock: 'lockstep', tick: 0 });
  p.child.kill('SIGTERM');
  t.equal(await p.exited, 0);
  const refused = run(['--config-dir', tempDir(), '--port', '0', '--lockstep', '--game', TINY]);
  t.not(await refused.exited, 0);
  t.equal(refused.out(), '', 'it never listened');
  t.match(refused.err(), /^gcb: the bridge could not start: .*does not export advance\(ticks\), which the lockstep clock needs/);
});
