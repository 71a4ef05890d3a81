// gcb as a subprocess (`node bin/gcb.js ...`): the bin runs, pipes get JSON, errors exit non-zero,
// `gcb serve` is `npm start`. The many smaller cases run in-process in gcb.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { EXIT_BY_CODE } from '../../src/cli/exit-codes.ts';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';
import { closedPort, gcb, gcbServer, pinPort } from './helpers.ts';

t.setTimeout(120_000);

// One sandbox bridge for the file (closed when it ends), found through its config dir.
const b = await startTestBridge(t, { game: SANDBOX_GAME });
pinPort(b.configDir, b.bridge.port);

t.test('gcb --help: the subcommands and the exit-code table', async (t) => {
  const main = await gcb(['--help']);
  t.equal(main.code, 0);
  for (const sub of ['serve', 'health', 'capabilities', 'call', 'token', 'mcp']) t.match(main.stdout, new RegExp(`\\n  ${sub} `), `lists ${sub}`);
  for (const [code, exit] of Object.entries(EXIT_BY_CODE)) t.match(main.stdout, new RegExp(`\\n +${exit}  ${code}\\n`), `${code} → ${exit}`);
});

t.test('on a pipe: JSON; --config-dir, --url with GCB_TOKEN, token; error envelopes and exit codes', async (t) => {
  const port = await closedPort();
  const [health, byUrl, token, badArgs, unreachable, noConfig] = await Promise.all([
    gcb(['health', '--config-dir', b.configDir]),
    gcb(['call', 'get_world_state', '--url', b.bridge.url], { env: { GCB_TOKEN: b.token } }),
    gcb(['token', '--config-dir', b.configDir]),
    gcb(['call', 'get_world_state', 'x=1', '--config-dir', b.configDir]),
    gcb(['health', '--url', `http://127.0.0.1:${port}`], { env: { GCB_TOKEN: b.token } }),
    gcb(['health', '--config-dir', tempDir()]),
  ]);
  t.equal(health.code, 0);
  t.match(JSON.parse(health.stdout), { ok: true, scenario: 'sandbox' });
  t.equal(health.stderr, '');
  t.equal(byUrl.code, 0);
  t.match(JSON.parse(byUrl.stdout), { ok: true, result: { width: 256 }, tick: Number });
  t.equal(token.stdout, `${b.token}\n`, 'the token alone, for $(gcb token)');
  t.equal(badArgs.code, EXIT_BY_CODE.BAD_ARGS);
  t.match(JSON.parse(badArgs.stdout), { ok: false, error: { code: 'BAD_ARGS', command: 'get_world_state', args: { x: 1 } } });
  t.match(badArgs.stderr, /^gcb: BAD_ARGS \(HTTP 400\): args has unknown property 'x'/);
  t.equal(unreachable.code, 4);
  t.match(unreachable.stderr, /cannot reach the bridge.*connection refused/);
  t.equal(unreachable.stdout, '');
  t.equal(noConfig.code, 3);
  t.match(noConfig.stderr, /no bridge\.toml/);
});

t.test('call: --json - reads stdin; --out writes the screenshot decoded', async (t) => {
  const env = { GCB_TOKEN: b.token };
  const out = join(tempDir(), 'map.png');
  const [stdin, image] = await Promise.all([
    gcb(['call', 'query_actors', '--json', '-', '--url', b.bridge.url], { env, input: '{"limit": 2}' }),
    gcb(['call', 'screenshot', 'format=png', 'max_dimension=32', '--out', out, '--url', b.bridge.url], { env }),
  ]);
  t.equal(stdin.code, 0, stdin.stderr);
  t.match(JSON.parse(stdin.stdout), { result: { limit: 2 } });
  t.equal(image.code, 0, image.stderr);
  const result = JSON.parse(image.stdout).result;
  t.equal(result.written_to, out);
  t.notOk('base64' in result);
  t.same(readFileSync(out).subarray(0, 4), Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'the decoded PNG');
  t.equal(readFileSync(out).length, result.bytes);
});

t.test('gcb serve is npm start: the same startup line, flags and exit codes', async (t) => {
  const dir = tempDir();
  const server = await gcbServer(['serve', '--config-dir', dir, '--port', '0', '--game', 'test/fixtures/tiny-game.ts']);
  t.teardown(() => void (server.child.exitCode === null && server.child.kill('SIGKILL')));
  const path = join(dir, 'bridge.toml');
  t.match(
    server.line,
    new RegExp(`^Game Control Bridge \\d+\\.\\d+\\.\\d+ listening on http://127\\.0\\.0\\.1:\\d+ \\(config: ${path.replaceAll('.', '\\.')}\\)$`),
  );
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(server.line)![1]!;
  const token = /token = "([A-Za-z0-9]{48})"/.exec(readFileSync(path, 'utf8'))![1]!;
  const [health, bad] = await Promise.all([
    gcb(['health', '--url', url], { env: { GCB_TOKEN: token } }),
    gcb(['serve', '--port', 'abc', '--config-dir', tempDir()]),
  ]);
  t.match(JSON.parse(health.stdout), { ok: true, game_version: 'tiny-1.0.0' });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /^gcb: --port abc is not allowed/);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
  t.notMatch(server.stdout() + server.stderr(), token, 'never the token');
});
