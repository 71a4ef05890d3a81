// The README's quick start, as written: `npm start` in a fresh directory, then its curl example.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { tempDir } from './helpers/bridge.ts';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const ROOT = new URL('..', import.meta.url).pathname;

t.test('the README curl example answers against `npm start` on the sandbox world', async (t) => {
  const block = /Ask the world something[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
  t.ok(block, 'the README has the curl example');
  const cwd = tempDir('gcb-readme-');
  // npm start is `node --import tsx src/main.ts`; run it from a fresh directory as a new user would.
  const start = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start as string;
  t.match(start, /src\/main\.ts|bin\/gcb\.js serve/);
  const child = spawn(process.execPath, [`--import=${import.meta.resolve('tsx')}`, `${ROOT}src/main.ts`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${err.slice(-400)}`)));
  });
  t.match(out, /listening on http:\/\/127\.0\.0\.1:8723/);
  const answer = execFileSync('bash', ['-c', block!], { cwd, encoding: 'utf8' });
  const body = JSON.parse(answer);
  t.match(body, { ok: true, result: { width: 256, height: 256, paused: false }, tick: Number });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  t.equal(await exited, 0);
});
