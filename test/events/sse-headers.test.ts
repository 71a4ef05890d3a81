// decisions §13: every answer of GET /events, the stream and each refusal, carries
// `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`, like the JSON answers.
import t, { type Test } from 'tap';
import { rawRequest, until } from '../helpers/bridge.ts';
import { openSse, startEventBridge, TOKEN } from './helpers.ts';

// One stream at most, so a second one is the 503.
const b = await startEventBridge(t, { maxEventStreams: 1 });

type Headers = Record<string, string | string[] | undefined>;

function hasSafeHeaders(t: Test, headers: Headers, what: string): void {
  t.equal(headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  t.equal(headers['cache-control'], 'no-store', `${what}: no-store`);
}

t.test('the 200 stream', async (t) => {
  const sse = await openSse(b.bridge.port, '/events?since=0');
  t.equal(sse.status, 200);
  t.match(sse.headers['content-type'], /^text\/event-stream/);
  hasSafeHeaders(t, sse.headers, '200');
  await sse.waitFor((f) => f.event === 'world_generated', 5000, 'the stream to flow');

  const busy = await openSse(b.bridge.port, '/events');
  await busy.ended;
  t.equal(busy.status, 503, 'a second stream is over max_event_streams');
  t.equal(JSON.parse(busy.body).error.code, 'BUSY');
  hasSafeHeaders(t, busy.headers, '503');
  sse.close();
  await until(() => b.bridge.stats().events.streams === 0, 5000, 'the stream to go');
});

t.test('every refusal', async (t) => {
  const port = b.bridge.port;
  const cases: Array<[string, number, Parameters<typeof openSse>[1], Parameters<typeof openSse>[2]]> = [
    ['an unknown kind', 400, '/events?kinds=nonsense', {}],
    ['a bad since', 400, '/events?since=-1', {}],
    ['no credential', 401, '/events', { token: null }],
    ['a foreign Origin', 401, '/events', { headers: { origin: 'http://evil.example' } }],
  ];
  for (const [what, status, path, options] of cases) {
    const answer = await openSse(port, path, options);
    await answer.ended;
    t.equal(answer.status, status, what);
    hasSafeHeaders(t, answer.headers, what);
  }
  // A Host that is no authority never becomes a web Request: refused before the app.
  const raw = await rawRequest(port, { path: '/events', headers: { host: `user@127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` } });
  t.equal(raw.status, 401, 'a Host with userinfo');
  hasSafeHeaders(t, raw.headers, 'a Host with userinfo');
});
