// `npm start` is `node --import tsx src/main.ts`: the CLI contract of decisions §1, as a subprocess.
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/bridge.ts';
import { fileURLToPath } from 'node:url';
import { fixture, nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

// Each case starts a bridge process (about 2 s of CPU); on a loaded 2-core machine the file took 73 s.
t.setTimeout(180_000);

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

t.test('first launch: one stdout line with URL, config path and mod_version; never the token; SIGTERM exits 0', async (t) => {
  const dir = tempDir();
  const p = run(['--config-dir', dir, '--port', '0', '--game', TINY]);
  t.teardown(() => void (p.child.exitCode === null && p.child.kill('SIGKILL')));
  await waitFor(() => p.out().includes('\n'));
  const path = join(dir, 'bridge.toml');
  const token = /token = "([A-Za-z0-9]{48})"/.exec(readFileSync(path, 'utf8'))![1]!;
  t.equal(statSync(path).mode & 0o777, 0o600);
  const lines = p.out().trim().split('\n');
  t.equal(lines.length, 1);
  t.match(
    lines[0],
    new RegExp(`^Game Control Bridge \\d+\\.\\d+\\.\\d+ listening on http://127\\.0\\.0\\.1:\\d+ \\(config: ${path.replaceAll('.', '\\.')}\\)$`),
  );
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(lines[0]!)![1]!;
  const res = await fetch(`${url}/cmd`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"name":"get_ui_state"}',
  });
  t.equal(res.status, 200);
  p.child.kill('SIGTERM');
  t.equal(await p.exited, 0);
  t.notMatch(p.out(), token, 'not on stdout');
  t.notMatch(p.err(), token, 'not in the logs');
  t.match(p.err(), /"msg":"request"/, 'logs are JSON lines on stderr');
});

const bad: Array<[string, string, RegExp]> = [
  ['host', '[Bridge]\nhost = "0.0.0.0"\n', /\[Bridge\] host = "0\.0\.0\.0" is not allowed/],
  [
    'max_concurrent_requests 0',
    '[Bridge]\nmax_concurrent_requests = 0\n',
    /\[Bridge\] max_concurrent_requests = 0 is not allowed; allowed: an integer from 1 to 64/,
  ],
  ['max_concurrent_requests 65', '[Bridge]\nmax_concurrent_requests = 65\n', /\[Bridge\] max_concurrent_requests = 65/],
  ['fps', '[Game]\nfps = 1000\n', /\[Game\] fps = 1000/],
];

for (const [what, extra, message] of bad) {
  t.test(`bad config (${what}): exits non-zero before listening, one clear line naming the key`, async (t) => {
    const dir = tempDir();
    const token = 'Z'.repeat(48);
    writeFileSync(
      join(dir, 'bridge.toml'),
      extra.replace(/^(\[Bridge\]\n)?/, (m) => (m ? `${m}token = "${token}"\n` : `[Bridge]\ntoken = "${token}"\n`)),
    );
    const p = run(['--config-dir', dir, '--port', '0', '--game', TINY]);
    const code = await p.exited;
    t.not(code, 0);
    t.equal(p.out(), '', 'nothing on stdout: it never listened');
    const lines = p.err().trim().split('\n');
    t.equal(lines.length, 1, 'one line');
    t.match(lines[0], message);
    t.notMatch(p.err(), token);
  });
}

t.test('bad flags exit non-zero with the usage', async (t) => {
  for (const args of [['--port', 'abc'], ['--port', '70000'], ['--nope']]) {
    const p = run([...args, '--config-dir', tempDir()]);
    t.not(await p.exited, 0, args.join(' '));
    t.match(p.err(), /gcb: /);
  }
});
