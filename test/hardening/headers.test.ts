// decisions §11: every JSON answer carries X-Content-Type-Options: nosniff and Cache-Control:
// no-store, whatever its status and endpoint; a client's X-Request-Id is kept only when it is 1..64
// characters of [A-Za-z0-9._:-], and otherwise replaced by a fresh one, in the answer and the log.
import t from 'tap';
import { rawRequest, startTestBridge } from '../helpers/bridge.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('every JSON answer: nosniff and no-store', async (t) => {
  const b = await startTestBridge(t);
  const capabilities = await b.fetch('/capabilities');
  const etag = capabilities.headers.get('etag')!;
  const answers: Array<[string, Promise<Response>]> = [
    ['GET /health', b.fetch('/health')],
    ['GET /capabilities', Promise.resolve(capabilities)],
    ['GET /capabilities 304', b.fetch('/capabilities', { headers: { 'if-none-match': etag } })],
    ['POST /cmd 200', b.fetch('/cmd', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"get_ui_state"}' })],
    ['POST /cmd 400', b.fetch('/cmd', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })],
    ['POST /cmd 404', b.fetch('/cmd', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"nope"}' })],
    ['401', b.fetch('/health', { auth: false })],
    ['other path 404', b.fetch('/elsewhere')],
  ];
  for (const [what, pending] of answers) {
    const response = await pending;
    t.equal(response.headers.get('x-content-type-options'), 'nosniff', `${what} (${response.status}): nosniff`);
    t.equal(response.headers.get('cache-control'), 'no-store', `${what} (${response.status}): no-store`);
  }
  t.equal((await answers[2]![1]).status, 304);

  // Answers read off a raw socket, as a browser would see them.
  const raw = await rawRequest(b.bridge.port, {
    method: 'POST',
    path: '/cmd',
    headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
    body: '{"name":"get_world_state","args":{"x":1}}',
  });
  t.equal(raw.status, 400);
  t.equal(raw.headers['x-content-type-options'], 'nosniff', 'raw socket answer: nosniff');
  t.equal(raw.headers['cache-control'], 'no-store', 'raw socket answer: no-store');
});

t.test('X-Request-Id: kept only as 1..64 of [A-Za-z0-9._:-], else a fresh one, in the answer and the log', async (t) => {
  const b = await startTestBridge(t);
  const kept = ['trace-42', 'a', 'A'.repeat(64), 'Abc.def_ghi:jkl-0123456789', '...', '::'];
  const replaced = [
    'A'.repeat(65),
    'has space',
    'slash/inside',
    'quote"inside',
    'brace{"level":60}',
    'tab\tinside',
    'ünïcode',
    '%41',
    'a,b',
    'x'.repeat(128),
    '',
  ];
  for (const id of kept) {
    const response = await b.fetch('/health', { headers: { 'x-request-id': id } });
    t.equal(response.headers.get('x-request-id'), id, `kept: ${id.slice(0, 20)}`);
  }
  for (const id of replaced) {
    const response = await rawRequest(b.bridge.port, {
      path: '/health',
      headers: { authorization: `Bearer ${b.token}`, 'x-request-id': Buffer.from(id, 'utf8').toString('latin1') },
    });
    const rid = response.headers['x-request-id'] as string;
    t.match(rid, UUID, `replaced by a fresh id: ${JSON.stringify(id.slice(0, 20))}`);
  }
  const logged = b.logs.filter((line) => line.msg === 'request').map((line) => line.rid as string);
  for (const id of kept) t.ok(logged.includes(id), `the log line carries the kept id ${id.slice(0, 20)}`);
  for (const rid of logged) t.ok(kept.includes(rid) || UUID.test(rid), `no client-chosen id outside the shape reached the log: ${rid.slice(0, 20)}`);
  t.equal(logged.filter((rid) => UUID.test(rid)).length, replaced.length, 'one fresh id per replaced one');
});
