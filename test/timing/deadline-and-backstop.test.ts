// The spec's timing rules at their real values: the 30 s queueing deadline and the 60 s backstop.
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { startTestBridge, until } from '../helpers/bridge.ts';

t.setTimeout(150_000);

t.test('30 s MAIN_THREAD_TIMEOUT for a queued action, 60 s backstop for the started one', async (t) => {
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, { gameOptions: { counters, stallOnPauseMs: 63_000 } });
  const stallStarted = Date.now();
  const stalled = b.cmd('pause'); // a game frame that takes 63 s
  await until(() => Atomics.load(view, COUNTER.pause) === 1, 5000, 'the stall to begin');
  const queuedAt = Date.now();
  const queued = await b.cmd('get_world_state');
  const waited = (Date.now() - queuedAt) / 1000;
  t.equal(queued.status, 504);
  t.equal(queued.body.error.code, 'MAIN_THREAD_TIMEOUT');
  t.match(queued.body.error.message, /30 s/);
  t.ok(waited >= 29.5 && waited <= 33, `dropped after ${waited.toFixed(2)} s (spec: 30 s)`);

  const backstop = await stalled;
  const ran = (Date.now() - stallStarted) / 1000;
  t.equal(backstop.status, 504);
  t.match(backstop.body.error, { code: 'MAIN_THREAD_TIMEOUT', message: /60 s handler backstop/ });
  t.ok(ran >= 59.5 && ran <= 63, `backstop answered after ${ran.toFixed(2)} s (spec: 60 s)`);
  t.equal(b.bridge.stats().slotsInUse, 1, 'the started action keeps its slot until it really ends');
  await until(() => b.bridge.stats().slotsInUse === 0, 10_000, 'the slot to come back when the action ends');
  t.equal(Atomics.load(view, COUNTER.worldState), 0, 'the dropped action never ran');
  t.equal((await b.cmd('get_ui_state')).body.result.config_paused, true, 'the started action ran to completion');
});
