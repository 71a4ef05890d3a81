// decisions §8 over real HTTP, with a stalled game frame and one slot: a client that drops its
// connection mid-request, and the backstop's 504.
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { keyed, stalledBridge } from './helpers.ts';
import { until } from '../helpers/bridge.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

t.test('a client that drops its connection mid-request: the answer is kept and the retry gets it', async (t) => {
  const { b, pauses } = await stalledBridge(t);
  const body = JSON.stringify({ name: 'pause' });
  const dropped = new Promise<string>((resolve) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: b.bridge.port,
      method: 'POST',
      path: '/cmd',
      agent: false,
      headers: {
        authorization: `Bearer ${b.token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'idempotency-key': 'drop-1',
      },
    });
    req.on('error', (err) => resolve(err.message));
    req.on('response', () => resolve('answered'));
    req.end(body);
    void until(() => pauses() === 1, 10_000, 'the stall to begin').then(() => req.destroy());
  });
  t.not(await dropped, 'answered', 'the connection was cut before the answer');
  await until(() => b.bridge.stats().slotsInUse === 0, 10_000, 'the pause to end');
  const retry = await b.cmd('pause', {}, keyed('drop-1'));
  t.equal(retry.status, 200);
  t.equal(retry.headers.get('idempotent-replayed'), 'true', 'the kept answer of the dropped request');
  t.match(retry.body.result, { previous_paused: false, paused: true });
  t.equal(pauses(), 1, 'the action ran once');
});

t.test("the backstop's 504 is kept once the action ends; a retry meanwhile waits for it", async (t) => {
  const { b, pauses } = await stalledBridge(t, { queueDeadlineMs: 200, handlerBackstopMs: 400, admissionWaitMs: 5000 });
  const first = await b.cmd('pause', {}, keyed('slow-1'));
  t.equal(first.status, 504);
  t.match(first.body.error.message, /backstop/);
  t.equal(b.bridge.stats().slotsInUse, 1, 'the action still runs');
  const retry = await b.cmd('pause', {}, keyed('slow-1'));
  t.equal(b.bridge.stats().slotsInUse, 0, 'the retry answered once the action ended');
  t.equal(retry.status, 504);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(pauses(), 1, 'never run twice');
});
