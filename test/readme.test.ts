// The README's quick start, as written: `npm start` (which builds, then serves the sandbox world on
// 8723 with its config in ./.bridge), then the README's curl example from the same directory.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/paths.ts';

const ROOT = REPO_ROOT;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

t.setTimeout(180_000);

t.test('the README curl example answers against `npm start`', async (t) => {
  const block = /Ask the world something[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
  t.ok(block, 'the README has the curl example');
  // detached: npm start runs a shell and node under it; the test ends the whole group it started
  const child = spawn('npm', ['start'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stopGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  t.teardown(() => stopGroup('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (/listening on/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${err.slice(-600)}`)));
  });
  t.match(out, /Game Control Bridge \d+\.\d+\.\d+ listening on http:\/\/127\.0\.0\.1:8723 \(config: .*\.bridge\/bridge\.toml\)/);
  const answer = execFileSync('bash', ['-c', block!], { cwd: ROOT, encoding: 'utf8' });
  t.match(JSON.parse(answer), { ok: true, result: { width: 256, height: 256, paused: false }, tick: Number });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  stopGroup('SIGINT'); // Ctrl-C; npm reports the signal itself, the bridge's own exit is tested in test/cli
  await exited;
  t.pass('npm start stops on Ctrl-C');
});
