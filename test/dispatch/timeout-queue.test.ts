// The pool's backstops under one timer (src/dispatch/timeout-queue.ts): each fires once its time
// has passed, in the order set, never before it and never once cleared; with nothing pending no
// timer is left to keep the process alive.
import t from 'tap';
import { TimeoutQueue } from '../../src/dispatch/timeout-queue.ts';
import { sleep } from '../../src/shared/sleep.ts';

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

t.test('each fires once its own time has passed, in the order set; a cleared one never fires', async (t) => {
  const queue = new TimeoutQueue(40);
  const fired: Array<{ name: string; late: number }> = [];
  const base = performance.now();
  // Times given as the caller read them: 0, 10 and 20 ms from now.
  const set = (name: string, at: number) => queue.set(at, () => fired.push({ name, late: performance.now() - (at + 40) }));
  set('a', base);
  const b = set('b', base + 10);
  set('c', base + 20);
  queue.clear(b);
  t.equal(queue.pending, 2);
  await sleep(200);
  t.same(
    fired.map((f) => f.name),
    ['a', 'c'],
    'in order, the cleared one left out',
  );
  // A node timer may fire up to a millisecond short of performance.now()'s time.
  for (const { name, late } of fired) t.ok(late >= -1 && late < 5000, `${name} fired ${late.toFixed(2)} ms after its time`);
  t.equal(queue.pending, 0);
});

t.test('with the first cleared, a later one fires at its own time, not the first one', async (t) => {
  const queue = new TimeoutQueue(30);
  const base = performance.now();
  const first = queue.set(base, () => t.fail('cleared'));
  let firedAt = 0;
  queue.set(base + 200, () => (firedAt = performance.now()));
  queue.clear(first);
  await sleep(80); // past the first one's time
  t.equal(firedAt, 0, 'not yet');
  await sleep(300);
  t.ok(firedAt >= base + 230 - 1, `fired ${(firedAt - base - 200).toFixed(2)} ms after its own start (its time: 30)`);
});

t.test('with nothing pending the timer goes: cleared, or all fired', async (t) => {
  const before = timers();
  const queue = new TimeoutQueue(60_000);
  const entries = Array.from({ length: 3000 }, () => queue.set(performance.now(), () => t.fail('cleared')));
  t.equal(timers(), before + 1, 'one timer for all of them');
  for (const entry of entries.slice(0, 2500)) queue.clear(entry);
  t.equal(queue.pending, 500);
  t.equal(timers(), before + 1, 'still there while some are pending');
  for (const entry of entries.slice(2500).reverse()) queue.clear(entry);
  t.equal(queue.pending, 0);
  t.equal(timers(), before, 'none left once every one is cleared');

  const short = new TimeoutQueue(5);
  let fired = 0;
  short.set(performance.now(), () => fired++);
  await sleep(40);
  t.equal(fired, 1);
  t.equal(timers(), before, 'none left once every one has fired');
});

t.test('what was cleared or fired goes from the front once it is worth the copy', async (t) => {
  const fill = (queue: TimeoutQueue, n: number) => Array.from({ length: n }, () => queue.set(performance.now(), () => t.fail('cleared')));
  const clearFirst = (queue: TimeoutQueue, entries: ReturnType<typeof fill>, n: number) => {
    for (const entry of entries.slice(0, n)) queue.clear(entry);
  };

  const small = new TimeoutQueue(60_000);
  const few = fill(small, 3);
  clearFirst(small, few, 2);
  t.equal(small.held, 3, 'a short skipped front is kept: copying it would cost more');
  clearFirst(small, few, 3);
  t.equal(small.held, 0, 'all cleared: nothing kept');

  // Past 1024 skipped entries, and more than half of the array: 2040 cross both at the 1025th, 2052
  // (exactly half at 1026) at the 1027th.
  for (const [size, lastKept] of [
    [2040, 1024],
    [2052, 1026],
  ] as const) {
    const queue = new TimeoutQueue(60_000);
    const entries = fill(queue, size);
    clearFirst(queue, entries, lastKept);
    t.equal(queue.held, size, `${size}: ${lastKept} skipped are kept`);
    clearFirst(queue, entries, lastKept + 1);
    t.equal(queue.held, size - lastKept - 1, `${size}: one more, and the front is dropped`);
    t.equal(queue.pending, size - lastKept - 1);
    clearFirst(queue, entries, size);
    t.equal(queue.held, 0);
  }
});
