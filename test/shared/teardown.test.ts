// The teardown list: last added unwinds first, each teardown awaited before the next and run once;
// one that throws or rejects is reported and the others still run; a reserved place unwinds where
// it was kept, or not at all when nothing filled it.
import t from 'tap';
import { TeardownList } from '../../src/shared/teardown.ts';

t.test('unwinds last added first, awaiting each teardown before the next', async (t) => {
  const list = new TeardownList();
  const ran: string[] = [];
  list.add('first', () => void ran.push('first'));
  list.add('slow', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    ran.push('slow');
  });
  list.add('last', () => void ran.push('last'));
  const before: string[] = [];
  t.same(await list.unwind({ before: (name) => void before.push(name) }), []);
  t.same(ran, ['last', 'slow', 'first'], 'the slow one finished before the next began');
  t.same(before, ['last', 'slow', 'first']);
});

t.test('a teardown that throws or rejects is reported, and the others still run', async (t) => {
  const list = new TeardownList();
  const ran: string[] = [];
  const thrown = new Error('sync');
  const rejected = new Error('async');
  list.add('a', () => void ran.push('a'));
  list.add('throws', () => {
    throw thrown;
  });
  list.add('b', () => void ran.push('b'));
  list.add('rejects', () => Promise.reject(rejected));
  list.add('c', () => void ran.push('c'));
  const reported: Array<[string, unknown]> = [];
  const failures = await list.unwind({ failed: (name, error) => void reported.push([name, error]) });
  t.same(ran, ['c', 'b', 'a']);
  t.same(failures, [
    { name: 'rejects', error: rejected },
    { name: 'throws', error: thrown },
  ]);
  t.same(reported, [
    ['rejects', rejected],
    ['throws', thrown],
  ]);
});

t.test('unwinding twice runs each teardown once and answers with the same promise', async (t) => {
  const list = new TeardownList();
  let runs = 0;
  list.add('once', () => void runs++);
  const first = list.unwind();
  const second = list.unwind();
  t.equal(second, first);
  await first;
  await list.unwind();
  t.equal(runs, 1);
});

t.test('a reserved place unwinds where it was kept once filled, and is skipped when never filled', async (t) => {
  const list = new TeardownList();
  const ran: string[] = [];
  list.add('start', () => void ran.push('start'));
  const kept = list.reserve('kept');
  list.reserve('never filled');
  list.add('middle', () => void ran.push('middle'));
  kept(() => void ran.push('kept'));
  const before: string[] = [];
  await list.unwind({ before: (name) => void before.push(name) });
  t.same(ran, ['middle', 'kept', 'start']);
  t.same(before, ['middle', 'kept', 'start'], 'the empty place is not even announced');
});

t.test('an empty list unwinds to no failures', async (t) => {
  t.same(await new TeardownList().unwind(), []);
});
