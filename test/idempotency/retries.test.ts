// decisions §8 over real HTTP, with a stalled game frame and one slot: a retry that waits for the
// first run without a slot, and an answer that is not kept (BUSY).
import t from 'tap';
import type { Mark } from '../fixtures/batch-commands.ts';
import { keyed, stalledBridge } from './helpers.ts';
import { until, type TestBridge } from '../helpers/bridge.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

const tags = async (b: TestBridge) => ((await b.cmd('marks')).body.result as Mark[]).map((m) => m.tag);

t.test('a retry while the first still runs waits for its answer, holding no slot', async (t) => {
  const { b, pauses } = await stalledBridge(t);
  const first = b.cmd('pause', {}, keyed('pause-1'));
  await until(() => pauses() === 1, 10_000, 'the stall to begin');
  const busy = await b.cmd('mark', { tag: 'unkeyed' });
  t.equal(busy.status, 503, 'the one slot is taken: an ordinary request gets BUSY after 300 ms');
  const retry = await b.cmd('pause', {}, keyed('pause-1'));
  t.equal(retry.status, 200, 'the retry waited past the admission wait without a slot');
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.same(retry.body, (await first).body);
  t.equal(pauses(), 1, 'paused once');
});

t.test('never-ran answers are not kept: a BUSY keyed request runs on its retry', async (t) => {
  const { b, pauses } = await stalledBridge(t);
  const stall = b.cmd('pause');
  await until(() => pauses() === 1, 10_000, 'the stall to begin');
  const busy = await b.cmd('mark_action', { tag: 'later' }, keyed('busy-1'));
  t.equal(busy.status, 503);
  t.equal(busy.headers.get('idempotent-stored'), 'false', 'not kept, and it says so');
  t.equal(busy.headers.get('retry-after'), '1', "BUSY's own header stays");
  await stall;
  const retry = await b.cmd('mark_action', { tag: 'later' }, keyed('busy-1'));
  t.equal(retry.status, 200);
  t.equal(retry.headers.get('idempotent-replayed'), null, 'ran now, not replayed');
  t.same(await tags(b), ['later']);
});
