// Security: tokens never appear in a log line, an error message or stdout. The captured logs and
// every answer are scanned after requests that carry the token, or strings that contain it, in
// every place a client can put it, and after config mistakes that put it in front of the parser.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { fileURLToPath } from 'node:url';
import { fixture, nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

t.setTimeout(120_000);

const TINY = fileURLToPath(fixture('tiny-game.ts'));

/** The lines of `text` that contain `secret`: what a failure shows. */
const linesWith = (text: string, secret: string) => text.split('\n').filter((line) => line.includes(secret));

t.test('in process: logs and error messages', async (t) => {
  const dir = tempDir();
  const T = writeConfig(dir);
  const b = await startTestBridge(t, { configDir: dir, timings: { killSwitchReloadMs: 50 } });
  const texts: string[] = [];
  const send = async (path: string, init: RequestInit & { auth?: boolean }) => {
    const response = await b.fetch(path, init);
    const text = await response.text();
    texts.push(`${response.status} ${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
    return { status: response.status, text };
  };
  const json = { 'content-type': 'application/json' };

  await t.test('wrong credentials that contain the token, tokens in the query string and the body', async (t) => {
    const near = [`${T}x`, `x${T}`, `${T} ${T}`, T.slice(1), T.toLowerCase(), `${T}\u00e9`];
    for (const token of near) {
      t.equal((await send('/health', { auth: false, headers: { authorization: `Bearer ${token}` } })).status, 401);
      t.equal((await send('/cmd', { auth: false, method: 'POST', headers: { ...json, 'x-wb-token': token }, body: '{"name":"get_ui_state"}' })).status, 401);
    }
    t.equal((await send(`/health?token=${T}`, { auth: false })).status, 401);
    t.equal((await send(`/cmd?access_token=${T}`, { auth: false, method: 'POST', headers: json, body: '{"name":"get_ui_state"}' })).status, 401);
    t.equal((await send(`/health?token=${T}`, {})).status, 200);
    t.equal(
      (
        await send('/cmd', {
          auth: false,
          method: 'POST',
          headers: { ...json, authorization: 'Bearer nope' },
          body: JSON.stringify({ name: 'get_ui_state', args: { token: T } }),
        })
      ).status,
      401,
    );
    t.equal((await send('/cmd', { method: 'POST', headers: json, body: JSON.stringify({ name: 'get_ui_state', args: { token: T } }) })).status, 400);
    t.equal((await send('/cmd', { method: 'POST', headers: json, body: JSON.stringify({ name: 'send_message', args: { to: '*', content: T } }) })).status, 200);
    t.equal((await send('/cmd', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: T })).status, 400);
    for (const text of texts) {
      if (text.startsWith('401')) t.notMatch(text, T, 'no 401 answer carries the token');
    }
    const errors = texts.map((text) => /"message":"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '');
    t.same(
      errors.filter((message) => message.includes(T)),
      [],
      'no error message carries the token',
    );
    t.same(linesWith(b.logText(), T), [], 'no log line carries the token');
    t.same(linesWith(b.logText(), T.slice(0, 24)), [], 'nor half of it');
  });

  await t.test('a client that puts its token in the URL path or in the command name', async (t) => {
    const from = b.logText().length;
    // Seen in the wild: bot APIs that take the token in the path (…/bot<token>/method).
    t.equal((await send(`/${T}/cmd`, { auth: false, method: 'POST', headers: json, body: '{"name":"get_ui_state"}' })).status, 401);
    t.equal((await send(`/bot${T}/health`, {})).status, 404);
    t.equal((await send('/cmd', { method: 'POST', headers: json, body: JSON.stringify({ name: T }) })).status, 404);
    t.same(linesWith(b.logText().slice(from), T), [], 'no log line carries the token');
  });

  await t.test('a hot reload of a bridge.toml whose token is mistyped', async (t) => {
    const from = b.logText().length;
    const file = join(dir, 'bridge.toml');
    const good = readFileSync(file, 'utf8');
    const warnings = () => b.logs.filter((line) => line.level === 40 && /kill switch/.test(String(line.msg))).length;
    for (const [i, mistake] of [`"${T} "`, `"${T}\\n"`, `"${T}x"`, `"${T.slice(1)}"`].entries()) {
      writeFileSync(file, good.replace(`"${T}"`, mistake));
      await until(() => warnings() === i + 1, 10_000, 'the reload to warn');
    }
    writeFileSync(file, good);
    t.equal(warnings(), 4, 'one warning each');
    t.same(linesWith(b.logText().slice(from), T), [], 'no warning carries the token');
    t.same(linesWith(b.logText().slice(from), T.slice(1)), [], 'nor all of it but one character');
  });
});

function run(args: string[]) {
  const child = spawn(process.execPath, nodeArgs('src/main.ts', ...args), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

t.test('as `npm start`: stdout and the real log stream (stderr)', async (t) => {
  const dir = tempDir();
  const p = run(['--config-dir', dir, '--port', '0', '--game', TINY]);
  t.teardown(() => void (p.child.exitCode === null && p.child.kill('SIGKILL')));
  await until(() => p.out().includes('\n'), 30_000, 'the startup line');
  const T = /token = "([A-Za-z0-9]{48})"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())![1]!;
  const answers: string[] = [];
  const send = async (path: string, headers: Record<string, string>, body?: string) => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
    answers.push(await response.text());
    return response.status;
  };
  t.equal(await send('/health', { authorization: `Bearer ${T}` }), 200);
  t.equal(await send('/cmd', { authorization: `Bearer ${T}x` }, '{"name":"get_ui_state"}'), 401);
  t.equal(await send(`/health?token=${T}`, {}), 401);
  t.equal(await send('/cmd', { 'x-wb-token': T }, '{"name":"get_world_state","args":{"bad":1}}'), 400);
  t.equal(await send('/cmd', { authorization: `Bearer ${T}` }, '{"name":"get_ui_state"'), 400);
  t.equal(await send('/cmd', { authorization: `Bearer ${T}` }, '{"name":"pause"}'), 200);
  p.child.kill('SIGTERM');
  t.equal(await p.exited, 0);
  t.equal(p.out().trim().split('\n').length, 1, 'stdout is the one startup line');
  t.notMatch(p.out(), T, 'not on stdout');
  t.match(p.err(), /"msg":"request"/, 'the logs were captured');
  t.same(linesWith(p.err(), T), [], 'not in the logs');
  t.same(
    answers.filter((a) => a.includes(T)),
    [],
    'not in any answer',
  );
});

t.test('as `npm start` with a mistyped token in bridge.toml: the refusal line does not print it', async (t) => {
  const dir = tempDir();
  const T = 'Q'.repeat(24) + 'w'.repeat(24);
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${T} "\n`);
  const p = run(['--config-dir', dir, '--port', '0', '--game', TINY]);
  t.teardown(() => void (p.child.exitCode === null && p.child.kill('SIGKILL')));
  t.not(await p.exited, 0, 'refuses to start');
  t.match(p.err(), /\[Bridge\] token/, 'the line names the key');
  t.same(linesWith(p.err(), T), [], 'but not the value');
  t.equal(p.out(), '', 'nothing on stdout');
});
