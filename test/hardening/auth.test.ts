// Security, authentication (decisions §5): the credential matrix, 1,000 wrong tokens against a
// saturated bridge, hostile Host and Origin values, and never an Access-Control-* header.
// "No work queued" is checked on the game's own call counters, the admission counters and the
// dispatcher: a refused request touches none of them.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { HOLD, HOLD_COUNTERS_BYTES, serveHoldCounters } from '../fixtures/hardening-commands.ts';
import { rawRequest, startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { HARDENING_COMMANDS, inParallel } from './helpers.ts';

t.setTimeout(120_000);

const SLOTS = 2;

t.test('authentication', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: SLOTS });
  const game = new SharedArrayBuffer(32);
  const gameCalls = new Int32Array(game);
  const hold = new SharedArrayBuffer(HOLD_COUNTERS_BYTES);
  const held = new Int32Array(hold);
  t.teardown(serveHoldCounters(hold));
  const b = await startTestBridge(t, {
    configDir: dir,
    gameOptions: { counters: game },
    commandModules: [HARDENING_COMMANDS],
    // The holders keep their slots for the whole file: on a loaded machine that has passed the 60 s
    // backstop, which answered them 504.
    timings: { admissionWaitMs: 2000, handlerBackstopMs: 600_000 },
  });
  const { port } = b.bridge;
  const T = b.token;
  const corsHeaders = new Set<string>();
  const request = async (path: string, headers: Record<string, string>, method = path.startsWith('/cmd') ? 'POST' : 'GET') => {
    const response = await fetch(`${b.bridge.url}${path}`, {
      method,
      headers: method === 'POST' ? { 'content-type': 'application/json', ...headers } : headers,
      ...(method === 'POST' ? { body: '{"name":"get_world_state"}' } : {}),
    });
    for (const name of response.headers.keys()) if (name.startsWith('access-control-')) corsHeaders.add(name);
    return { status: response.status, body: (await response.json().catch(() => undefined)) as any };
  };
  // Game calls, frames (COUNTER.updates) excepted: they tick on their own.
  const work = () => ({
    game: [...gameCalls].filter((_, i) => i !== COUNTER.updates),
    runs: Atomics.load(held, HOLD.runs),
    pending: b.bridge.stats().dispatcherPending,
    queued: b.bridge.stats().queued,
  });

  // Saturate: every slot held by a pool command that waits on a gate (the game thread runs free).
  const holders = Array.from({ length: SLOTS }, () => b.cmd('hold', { gate: true }));
  await until(() => b.bridge.stats().slotsInUse === SLOTS && Atomics.load(held, HOLD.inFlight) === SLOTS, 10_000, 'the slots to be held');
  const idle = work();

  await t.test('the matrix: every refused credential is 401 at once, on every endpoint, and queues nothing', async (t) => {
    const refused: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['empty Authorization', { authorization: '' }],
      ['Authorization: Bearer (no token)', { authorization: 'Bearer' }],
      ['Authorization: "Bearer " (empty token)', { authorization: 'Bearer ' }],
      ['empty X-WB-Token', { 'x-wb-token': '' }],
      ['wrong scheme Basic with the token', { authorization: `Basic ${T}` }],
      ['wrong scheme Token with the token', { authorization: `Token ${T}` }],
      ['the token without a scheme', { authorization: T }],
      ['Bearer:token (no space)', { authorization: `Bearer:${T}` }],
      ['a wrong Bearer beside a right X-WB-Token', { authorization: 'Bearer nope', 'x-wb-token': T }],
      ['a wrong lowercase bearer beside a right X-WB-Token', { authorization: 'bearer nope', 'x-wb-token': T }],
      ['a wrong BEARER beside a right X-WB-Token', { authorization: 'BEARER nope', 'x-wb-token': T }],
      ['an empty Bearer beside a right X-WB-Token', { authorization: 'Bearer ', 'x-wb-token': T }],
      ['the token plus one character', { authorization: `Bearer ${T}x` }],
      ['the token minus one character', { authorization: `Bearer ${T.slice(1)}` }],
      ['the token in lower case', { authorization: `Bearer ${T.toLowerCase()}` }],
      ['the token and more words', { authorization: `Bearer ${T} ${T}` }],
      ['X-WB-Token carrying "Bearer <token>"', { 'x-wb-token': `Bearer ${T}` }],
      ['a wrong X-WB-Token', { 'x-wb-token': 'nope' }],
      ['a wrong-scheme Authorization and a wrong X-WB-Token', { authorization: `Basic ${T}`, 'x-wb-token': 'nope' }],
    ];
    const paths = ['/cmd', '/health', '/capabilities', '/nowhere'];
    for (const [what, headers] of refused) {
      for (const path of paths) {
        const answer = await request(path, headers);
        t.equal(answer.status, 401, `${what}: ${path}`);
        t.match(answer.body, { ok: false, error: { code: 'UNAUTHORIZED', command: '', args: {} } });
      }
    }
    for (const path of ['/health?token=', '/cmd?token=', '/capabilities?access_token=', '/health?authorization=Bearer%20', '/cmd?x-wb-token=']) {
      const answer = await request(`${path}${T}`, {});
      t.equal(answer.status, 401, `token in the query string: ${path}…`);
    }
    t.same(work(), idle, 'no work queued: no game call, no pool run, nothing dispatched');
    t.equal(b.bridge.stats().waiting, 0, 'nobody waits for a slot');
  });

  await t.test('accepted: `bearer` in any case is a Bearer; X-WB-Token when there is no Bearer', async (t) => {
    const accepted: Array<[string, Record<string, string>]> = [
      ['Bearer', { authorization: `Bearer ${T}` }],
      ['bearer', { authorization: `bearer ${T}` }],
      ['BEARER', { authorization: `BEARER ${T}` }],
      ['bEaReR', { authorization: `bEaReR ${T}` }],
      ['Bearer with two spaces', { authorization: `Bearer  ${T}` }],
      ['X-WB-Token', { 'x-wb-token': T }],
      ['a non-Bearer Authorization and a right X-WB-Token', { authorization: `Basic ${T}`, 'x-wb-token': T }],
      ['a right Bearer and a wrong X-WB-Token: the Bearer alone decides', { authorization: `Bearer ${T}`, 'x-wb-token': 'nope' }],
    ];
    // /capabilities is never gated, so it answers while the slots are held.
    for (const [what, headers] of accepted) t.equal((await request('/capabilities', headers)).status, 200, what);
  });

  await t.test('1,000 wrong tokens never take a slot while the bridge is saturated', async (t) => {
    let maxSlots = 0;
    let maxWaiting = 0;
    const sampler = setInterval(() => {
      const stats = b.bridge.stats();
      maxSlots = Math.max(maxSlots, stats.slotsInUse);
      maxWaiting = Math.max(maxWaiting, stats.waiting);
    }, 1);
    const statuses = new Map<number, number>();
    const forms = [
      (token: string) => ({ authorization: `Bearer ${token}` }),
      (token: string) => ({ 'x-wb-token': token }),
      (token: string) => ({ authorization: `bearer ${token}`, 'x-wb-token': T }),
      (token: string) => ({ authorization: `Basic ${token}` }),
    ];
    const paths = ['/cmd', '/health', '/cmd', '/capabilities'];
    await inParallel(
      Array.from({ length: 1000 }, (_, i) => i),
      32,
      async (i) => {
        const token = i % 10 === 0 ? `${T.slice(0, 47)}${T[47] === 'a' ? 'b' : 'a'}` : randomBytes(36).toString('base64url');
        const answer = await request(paths[i % paths.length]!, forms[i % forms.length]!(token));
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const stats = b.bridge.stats();
        maxSlots = Math.max(maxSlots, stats.slotsInUse);
        maxWaiting = Math.max(maxWaiting, stats.waiting);
      },
    );
    clearInterval(sampler);
    t.same(Object.fromEntries(statuses), { 401: 1000 }, 'all 1,000 answered 401');
    t.equal(maxSlots, SLOTS, 'the slots in use never went past the holders');
    t.equal(maxWaiting, 0, 'not one of them waited for a slot');
    t.same(work(), idle, 'no work queued');
  });

  await t.test('Host: hostile values are 401 even with the right token', async (t) => {
    const hostile = [
      'evil.example',
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `127.1:${port}`,
      `127.0.1:${port}`,
      `0177.0.0.1:${port}`,
      `0177.0.0.01:${port}`,
      `0x7f.0.0.1:${port}`,
      `0x7f000001:${port}`,
      `2130706433:${port}`,
      `017700000001:${port}`,
      `127.0.0.1.:${port}`,
      `localhost.:${port}`,
      `127.0.0.2:${port}`,
      `[::1]:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      '127.0.0.1',
      'localhost',
      `127.0.0.1:${port + 1}`,
      `127.0.0.1:0${port}`,
      `127.0.0.1:${port}@evil.example`,
      `user@127.0.0.1:${port}`,
      `127.0.0.1:${port}/`,
      `127.0.0.1:${port}, evil.example`,
    ];
    // Host values that are not even a valid authority (userinfo, a path, a list, an IPv6-mapped
    // address that URL parsing rewrites) cannot become a web Request; they are refused before the
    // app, still with the envelope and X-Request-Id like every other 401.
    for (const host of hostile) {
      const answer = await rawRequest(port, { path: '/health', headers: { host, authorization: `Bearer ${T}`, 'x-request-id': 'host-probe' } });
      t.equal(answer.status, 401, `Host ${host}`);
      t.match(JSON.parse(answer.body), { ok: false, error: { code: 'UNAUTHORIZED', command: '', args: {} } }, `Host ${host}: the envelope`);
      t.equal(answer.headers['x-request-id'], 'host-probe', `Host ${host}: X-Request-Id`);
      for (const name of Object.keys(answer.headers)) if (name.startsWith('access-control-')) corsHeaders.add(name);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      t.equal((await rawRequest(port, { path: '/capabilities', headers: { host, authorization: `Bearer ${T}` } })).status, 200, `Host ${host} is the bridge`);
    }
  });

  await t.test('Origin: foreign origins are 401 even with the right token; loopback origins pass', async (t) => {
    const foreign = [
      'https://evil.example',
      'http://evil.example',
      'null',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'http://127.0.0.1@evil.example',
      'http://evil.example#@127.0.0.1',
      'http://127.1',
      'http://0x7f000001',
      'http://2130706433',
      'http://[::ffff:127.0.0.1]',
      'http://localhost.',
      'file://',
      'chrome-extension://abcdef',
      'http://127.0.0.1:3000 http://evil.example',
      'http://127.0.0.1:3000/path',
      '',
    ];
    for (const origin of foreign) {
      t.equal((await request('/capabilities', { authorization: `Bearer ${T}`, origin })).status, 401, `Origin ${JSON.stringify(origin)}`);
    }
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost', 'https://localhost:8443', 'http://[::1]:5173']) {
      t.equal((await request('/capabilities', { authorization: `Bearer ${T}`, origin })).status, 200, `Origin ${origin}`);
    }
    // Preflights, from a foreign origin and a loopback one: never a CORS grant.
    for (const origin of ['https://evil.example', 'http://localhost:3000']) {
      const answer = await request(
        '/cmd',
        { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
        'OPTIONS',
      );
      t.equal(answer.status, 401, `OPTIONS preflight from ${origin}: no credential, 401`);
    }
    t.same(work(), idle, 'no work queued');
  });

  await t.test("requests Node's parser refuses itself get its own 400", async (t) => {
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(text));
        let out = '';
        socket.on('data', (chunk: Buffer) => (out += chunk.toString()));
        socket.on('close', () => resolve(out));
        socket.on('error', () => resolve(out));
        setTimeout(() => socket.destroy(), 5000).unref();
      });
    const noHost = await raw(`GET /capabilities HTTP/1.1\r\nAuthorization: Bearer ${T}\r\n\r\n`);
    t.match(noHost, /^HTTP\/1\.1 400 /, 'no Host header: 400');
    const both = await raw(
      `POST /cmd HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${T}\r\nContent-Type: application/json\r\nContent-Length: 26\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\n{"name":"get_world_state"}\r\n0\r\n\r\n`,
    );
    t.match(both, /^HTTP\/1\.1 400 /, 'Content-Length with Transfer-Encoding: 400');
    t.notMatch(both, /access-control-/i);
    const target = await raw(`GET capabilities HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${T}\r\nConnection: close\r\n\r\n`);
    t.match(target, /^HTTP\/1\.1 400 /, 'a request target that is not a path: 400');
    // An absolute-form target that is no URL gets past Node's parser but cannot become a web
    // Request: the bridge answers it itself, with the envelope.
    const absolute = await raw(`GET http://[::1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${T}\r\nConnection: close\r\n\r\n`);
    t.match(absolute, /^HTTP\/1\.1 400 /, 'an absolute target that is no URL: 400');
    t.match(absolute, /x-request-id: /i);
    t.match(absolute, /"code":"BAD_ARGS"/);
    t.same(work(), idle, 'no work queued');
  });

  t.same([...corsHeaders], [], 'no Access-Control-* header in any answer of this file');
  Atomics.store(held, HOLD.gate, 1);
  Atomics.notify(held, HOLD.gate);
  for (const holder of await Promise.all(holders)) t.equal(holder.status, 200, 'the holders finish');
  await until(() => b.bridge.stats().slotsInUse === 0, 10_000, 'the slots to come back');
  t.equal(gameCalls[COUNTER.worldState], 0, 'not one get_world_state of this file ever ran');
  t.notMatch(b.logText(), T, 'the token is in no log line');
});
