// spec: Order of processing, step by step, black-box over HTTP on a real socket.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { rawRequest, startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';

/** A bridge with one slot, held by a pause that stalls the game thread for `stallMs`. */
async function saturated(t: Tap.Test, stallMs = 1500) {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: 1 });
  const counters = new SharedArrayBuffer(32);
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { counters, stallOnPauseMs: stallMs }, timings: { admissionWaitMs: 400 } });
  const holder = b.cmd('pause');
  await until(() => b.bridge.stats().slotsInUse === 1, 5000, 'the slot to be taken');
  return { b, holder, counters: new Int32Array(counters) };
}
declare namespace Tap {
  type Test = import('tap').Test;
}

t.test('step 1: a bad credential is 401 at once and never takes a slot, even while saturated', async (t) => {
  // A 3 s stall: the slot must still be held after the 26 requests below (1.5 s was not always
  // enough with four test processes on two cores).
  const { b, holder } = await saturated(t, 3000);
  const wrong: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer nope' },
    { authorization: 'Bearer ' },
    { authorization: `Basic ${b.token}` },
    { authorization: 'Bearer nope', 'x-wb-token': b.token },
    { 'x-wb-token': 'nope' },
  ];
  const started = Date.now();
  // All at once: one after the other, on a loaded machine, they could outlast the 1.5 s stall,
  // and the slot check below would then fail for want of saturation, not of the rule.
  const cases = wrong.flatMap((headers) => ['/cmd', '/health', '/capabilities', '/nowhere'].map((path) => ({ headers, path })));
  const answers = await Promise.all(
    cases.map(async ({ headers, path }) => {
      const response = await b.fetch(path, {
        method: path === '/cmd' ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', ...headers },
        auth: false,
        ...(path === '/cmd' ? { body: '{"name":"get_world_state"}' } : {}),
      });
      return { status: response.status, body: await response.json() };
    }),
  );
  for (const [i, { headers, path }] of cases.entries()) {
    t.equal(answers[i]!.status, 401, `${path} ${JSON.stringify(Object.keys(headers))}`);
    t.match(answers[i]!.body, { ok: false, error: { code: 'UNAUTHORIZED', command: '', args: {} } });
  }
  const fromQuery = await b.fetch(`/health?token=${b.token}`, { auth: false });
  t.equal(fromQuery.status, 401, 'a token in the query string is not a credential');
  t.ok(Date.now() - started < 3000, '401s never wait for admission');
  t.equal(b.bridge.stats().slotsInUse, 1);
  t.equal(b.bridge.stats().waiting, 0, 'no bad request waits for a slot');
  await holder;
});

t.test('the 401 envelope reads no body: command "" and args {}', async (t) => {
  const b = await startTestBridge(t);
  const response = await b.fetch('/cmd', {
    method: 'POST',
    auth: false,
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: '{"name":"pause","args":{"a":1}}',
  });
  t.equal(response.status, 401);
  const body = (await response.json()) as any;
  t.same(Object.keys(body.error).sort(), ['args', 'code', 'command', 'message']);
  t.match(body, { ok: false, error: { code: 'UNAUTHORIZED', command: '', args: {} } });
});

t.test('step 2: BAD_ARGS and UNKNOWN_COMMAND are answered before admission', async (t) => {
  const { b, holder, counters } = await saturated(t, 3000);
  const bad = await b.cmd('get_world_state', { x: 1 });
  t.equal(bad.status, 400);
  t.match(bad.body.error, { code: 'BAD_ARGS', command: 'get_world_state', args: { x: 1 }, message: /unknown property 'x'/ });
  const unknown = await b.cmd('no_such_command', { a: 1 });
  t.equal(unknown.status, 404);
  t.match(unknown.body.error, { code: 'UNKNOWN_COMMAND', command: 'no_such_command', args: { a: 1 } });
  const notJson = await b.fetch('/cmd', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"pause"}' });
  t.equal(notJson.status, 400);
  t.match(await notJson.json(), { error: { code: 'BAD_ARGS', message: /Content-Type/ } });
  // Judged by the slot, not the clock: a request that waited for admission would have been BUSY
  // after 400 ms, as the only slot was held the whole time.
  t.equal(b.bridge.stats().slotsInUse, 1, 'the only slot was held throughout: none of them was admitted');
  t.equal(counters[COUNTER.worldState], 0, 'nothing reached the game');
  await holder;
});

t.test('step 3: a full bridge answers 503 BUSY with Retry-After after the admission wait; /capabilities is never gated', async (t) => {
  // A 3 s stall: the requests below must reach admission 0.4 s before it ends to be refused, and a
  // loaded machine may take a second to get them there.
  const { b, holder } = await saturated(t, 3000);
  const started = Date.now();
  const [busy, health, caps] = await Promise.all([b.cmd('get_ui_state'), b.fetch('/health'), b.fetch('/capabilities')]);
  t.equal(busy.status, 503);
  t.match(busy.body.error, { code: 'BUSY', command: 'get_ui_state', message: /retry/ });
  t.equal(busy.headers.get('retry-after'), '1');
  t.equal(health.status, 503, 'GET /health is gated like a command');
  t.equal(health.headers.get('retry-after'), '1');
  t.match(await health.json(), { ok: false, error: { code: 'BUSY', command: 'health' } });
  t.equal(caps.status, 200, 'GET /capabilities answers while saturated');
  t.ok(Date.now() - started >= 350, 'BUSY came after the wait');
  t.equal((await holder).status, 200, 'the slot holder itself completes');
  t.equal(b.bridge.stats().slotsInUse, 0);
});

t.test('DISABLED: after authentication, POST /cmd only; health and capabilities keep answering; no restart to re-enable', async (t) => {
  const dir = tempDir();
  const token = writeConfig(dir);
  const b = await startTestBridge(t, { configDir: dir, timings: { killSwitchReloadMs: 50 } });
  const file = join(dir, 'bridge.toml');
  const write = (enabled: boolean) => writeFileSync(file, `enabled = ${enabled}\n[Bridge]\ntoken = "${token}"\n`);
  write(false);
  let status = 0;
  // Polled with room for a loaded machine: the file is re-read every 50 ms here.
  let deadline = Date.now() + 10_000;
  while (Date.now() < deadline && status !== 503) status = (await b.cmd('get_ui_state')).status;
  const disabled = await b.cmd('get_ui_state');
  t.equal(disabled.status, 503);
  t.match(disabled.body.error, { code: 'DISABLED', message: /enabled = false/ });
  t.equal((await b.fetch('/cmd', { method: 'POST', auth: false, headers: { authorization: 'Bearer nope' } })).status, 401, 'authentication still comes first');
  const health = await b.fetch('/health');
  t.equal(health.status, 200);
  t.equal(((await health.json()) as any).enabled, false, 'health shows enabled: false');
  t.equal((await b.fetch('/capabilities')).status, 200);
  write(true);
  deadline = Date.now() + 10_000;
  while (Date.now() < deadline && status !== 200) status = (await b.cmd('get_ui_state')).status;
  t.equal(status, 200, 'served again with no restart');
  t.equal(((await (await b.fetch('/health')).json()) as any).enabled, true);
});

t.test('unknown paths and methods: 404 UNKNOWN_COMMAND after authentication', async (t) => {
  const b = await startTestBridge(t);
  for (const [method, path] of [
    ['GET', '/nope'],
    ['POST', '/health'],
    ['GET', '/cmd'],
    ['DELETE', '/cmd'],
    ['PUT', '/capabilities'],
    ['GET', '/cmd/extra'],
  ]) {
    const response = await b.fetch(path!, { method: method! });
    t.equal(response.status, 404, `${method} ${path}`);
    t.match(await response.json(), { ok: false, error: { code: 'UNKNOWN_COMMAND', command: '', args: {} } });
    const anonymous = await b.fetch(path!, { method: method!, auth: false });
    t.equal(anonymous.status, 401, `${method} ${path} without a token`);
  }
});

t.test('credentials: X-WB-Token, Bearer in any case; Host and Origin rules; never a CORS header', async (t) => {
  const b = await startTestBridge(t);
  const port = b.bridge.port;
  t.equal((await b.fetch('/health', { headers: { 'x-wb-token': b.token } })).status, 200, 'X-WB-Token');
  t.equal((await b.fetch('/health', { headers: { authorization: `bEaReR ${b.token}` } })).status, 200, 'bearer in any case');
  for (const host of [
    'evil.example',
    `localhost.evil.example:${port}`,
    `127.1:${port}`,
    `0177.0.0.1:${port}`,
    `0x7f000001:${port}`,
    `localhost.:${port}`,
    `127.0.0.1:${port + 1}`,
  ]) {
    const response = await rawRequest(port, { path: '/health', headers: { host, authorization: `Bearer ${b.token}` } });
    t.equal(response.status, 401, `Host ${host}`);
  }
  t.equal(
    (await rawRequest(port, { path: '/health', headers: { host: `localhost:${port}`, authorization: `Bearer ${b.token}` } })).status,
    200,
    'Host localhost:PORT',
  );
  for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
    t.equal((await b.fetch('/health', { headers: { origin } })).status, 401, `Origin ${origin}`);
  }
  const local = await b.fetch('/health', { headers: { origin: 'http://localhost:3000' } });
  t.equal(local.status, 200, 'a loopback Origin is fine');
  for (const response of [
    local,
    await b.fetch('/capabilities', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } }),
  ]) {
    t.same(
      [...response.headers.keys()].filter((h) => h.startsWith('access-control-')),
      [],
      'no Access-Control-* header',
    );
  }
});

t.test('body limit: over 1 MiB by Content-Length or while streaming is BAD_ARGS naming the limit; the limit minus one is read', async (t) => {
  const b = await startTestBridge(t);
  const port = b.bridge.port;
  const auth = { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' };
  const big = await rawRequest(port, { method: 'POST', path: '/cmd', headers: { ...auth, 'content-length': 2 * 1024 * 1024 }, body: Buffer.alloc(16, 32) });
  t.equal(big.status, 400);
  t.match(JSON.parse(big.body).error, { code: 'BAD_ARGS', message: /1048576-byte limit/ });
  const chunk = Buffer.alloc(256 * 1024, 32);
  const chunked = await rawRequest(port, {
    method: 'POST',
    path: '/cmd',
    headers: { ...auth, 'transfer-encoding': 'chunked' },
    chunks: [chunk, chunk, chunk, chunk, chunk],
    endless: true,
  });
  t.equal(chunked.status, 400);
  t.match(JSON.parse(chunked.body).error, { code: 'BAD_ARGS', message: /1048576-byte limit/ });
  const json = '{"name":"get_ui_state"}';
  const padded = json + ' '.repeat(1024 * 1024 - 1 - json.length);
  const fits = await rawRequest(port, { method: 'POST', path: '/cmd', headers: { ...auth, 'content-length': Buffer.byteLength(padded) }, body: padded });
  t.equal(fits.status, 200, 'exactly the limit minus one is accepted');
  t.equal(b.bridge.stats().slotsInUse, 0);
});

t.test('tokens never reach a log line', async (t) => {
  const b = await startTestBridge(t);
  await b.fetch('/health');
  await b.fetch('/health', { auth: false, headers: { authorization: `Bearer ${b.token}x` } });
  await b.cmd('get_ui_state');
  t.ok(b.logs.length >= 3);
  t.notMatch(b.logText(), b.token);
  const line = b.logs.find((l) => l.command === 'get_ui_state')!;
  t.match(line, { agent: 'legacy', command: 'get_ui_state', status: 200, code: null, admission_wait_ms: Number, queue_wait_ms: Number, run_ms: Number });
});

t.test('GET /capabilities carries an ETag and answers If-None-Match with 304', async (t) => {
  const b = await startTestBridge(t);
  const first = await b.fetch('/capabilities');
  const tag = first.headers.get('etag');
  t.match(tag, /^"[A-Za-z0-9_-]+"$/);
  const body = (await first.json()) as { commands: unknown[] };
  t.ok(body.commands.length > 0);
  const again = await b.fetch('/capabilities', { headers: { 'if-none-match': tag! } });
  t.equal(again.status, 304);
  t.equal(await again.text(), '');
  t.equal((await b.fetch('/capabilities', { headers: { 'if-none-match': '"other"' } })).status, 200);
  t.equal((await b.fetch('/capabilities', { auth: false, headers: { 'if-none-match': tag! } })).status, 401, 'still authenticated first');
});
