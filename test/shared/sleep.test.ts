// The one sleep of the tree: resolves once its time is up; a signal ends it early with the signal's
// reason and leaves no timer or listener behind; `unref` keeps the timer from holding the process.
import { getEventListeners } from 'node:events';
import t from 'tap';
import { sleep } from '../../src/shared/sleep.ts';

/** Timers that keep the process alive now (an unref'd timer is not among them). */
const refTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

t.test('resolves after its time, not before', async (t) => {
  const started = performance.now();
  await sleep(30);
  // Node may fire a timer up to a millisecond early; a lower bound only, never an upper one.
  t.ok(performance.now() - started >= 29, 'waited its time');
});

t.test('a signal aborted during the wait rejects at once with its reason and clears the timer', async (t) => {
  const controller = new AbortController();
  const before = refTimers();
  const waiting = sleep(3_600_000, { signal: controller.signal });
  t.equal(refTimers(), before + 1, 'the wait holds a timer');
  const reason = new Error('closing');
  controller.abort(reason);
  await t.rejects(waiting, reason);
  t.equal(refTimers(), before, 'its timer is gone');
  t.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener left');
});

t.test('an already aborted signal rejects without waiting or arming a timer', async (t) => {
  const before = refTimers();
  const waiting = sleep(3_600_000, { signal: AbortSignal.abort('gone') });
  t.equal(refTimers(), before);
  await t.rejects(waiting, 'gone' as unknown as Error);
});

t.test('a wait that ends on time takes its abort listener away', async (t) => {
  const controller = new AbortController();
  await sleep(1, { signal: controller.signal });
  t.equal(getEventListeners(controller.signal, 'abort').length, 0);
  controller.abort(); // nothing listens: no late rejection
});

t.test('unref: the timer does not hold the process', async (t) => {
  const before = refTimers();
  // The plain wait outlasts the other: it keeps the process up until the unref one has resolved.
  const held = sleep(200);
  t.equal(refTimers(), before + 1, 'a plain wait holds the process');
  const free = sleep(20, { unref: true });
  t.equal(refTimers(), before + 1, 'an unref wait does not');
  await free;
  await held;
});
