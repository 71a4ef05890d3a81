// The dispatcher's small parts, each alone: the per-frame job registry, a batch's items in one
// frame (decisions §8), and execute()'s choice between the game queue and the pool (spec step 5).
// Fast unit tests: `npm run mutate -- dispatch` runs them once a mutant.
import t from 'tap';
import { runBatch } from '../../src/commands/action/batch/run.ts';
import type { CommandDef } from '../../src/commands/define.ts';
import type { Outcome } from '../../src/errors/bridge-error.ts';
import { execute } from '../../src/dispatch/execute.ts';
import type { QueueAnswer } from '../../src/dispatch/game-queue.ts';
import { JobRegistry } from '../../src/dispatch/jobs.ts';
import type { CommandPool, PoolAnswer } from '../../src/dispatch/pool.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { FrameJob } from '../../src/shared/frame.ts';
import { createSharedState, kJobs } from '../../src/shared/layout.ts';

const caller = { agentId: 'a1' } as CallerContext;

t.test('job registry: at most its capacity; the count is mirrored in shared memory', async (t) => {
  const { control } = createSharedState();
  t.equal(new JobRegistry(control).capacity, 32, 'spec Limits: 32 jobs by default');
  const jobs = new JobRegistry(control, 2);
  const job = (): FrameJob => ({ step: () => false });
  t.equal(jobs.register(job()), true);
  t.equal(Atomics.load(control, kJobs), 1);
  t.equal(jobs.register(job()), true);
  t.equal(jobs.register(job()), false, 'full: refused');
  t.equal(jobs.size, 2);
  t.equal(Atomics.load(control, kJobs), 2);
});

t.test('job registry: one step of every job a frame, in order; finished and throwing jobs leave', async (t) => {
  const { control } = createSharedState();
  const jobs = new JobRegistry(control);
  const steps: string[] = [];
  const counting = (name: string, frames: number): FrameJob => ({ step: () => (steps.push(name), --frames === 0) });
  jobs.register(counting('a', 1));
  jobs.register({
    step: () => {
      steps.push('boom');
      throw new Error('a broken job');
    },
  });
  jobs.register(counting('b', 3));
  jobs.register(counting('c', 2));
  jobs.step();
  t.same(steps, ['a', 'boom', 'b', 'c'], 'every job once, in registration order, past a throwing one');
  t.equal(jobs.size, 2);
  t.equal(Atomics.load(control, kJobs), 2);
  steps.length = 0;
  jobs.step();
  t.same(steps, ['b', 'c'], 'the kept jobs keep their order');
  t.equal(jobs.size, 1);
  jobs.step();
  t.same(steps, ['b', 'c', 'b']);
  t.equal(jobs.size, 0);
  t.equal(Atomics.load(control, kJobs), 0);
  jobs.step(); // nothing left: harmless
  t.equal(jobs.register(counting('d', 1)), true, 'room again');
});

t.test('job registry: cancelAll cancels every job once and empties it', async (t) => {
  const { control } = createSharedState();
  const jobs = new JobRegistry(control);
  const cancelled: string[] = [];
  jobs.register({ step: () => false, cancel: () => cancelled.push('a') });
  jobs.register({ step: () => false }); // no cancel: fine
  jobs.register({ step: () => false, cancel: () => cancelled.push('c') });
  jobs.cancelAll();
  t.same(cancelled, ['a', 'c']);
  t.equal(jobs.size, 0);
  t.equal(Atomics.load(control, kJobs), 0);
  let stepped = false;
  jobs.register({ step: () => (stepped = true) });
  jobs.step();
  t.equal(stepped, true, 'usable after');
});

const ok = (value: unknown): Outcome<unknown> => ({ ok: true, value });
const fail = (message: string): Outcome<unknown> => ({ ok: false, code: 'GAME_REJECTED', message });

t.test('batch: every item runs with its args (none: {}), and the tally counts them', async (t) => {
  const ran: Array<[string, unknown]> = [];
  const outcome = runBatch({ commands: [{ name: 'a', args: { x: 1 } }, { name: 'b' }] }, (name, args) => (ran.push([name, args]), ok(name)));
  t.notOk(outcome instanceof Promise, 'all items answered in the frame: no promise');
  t.same(ran, [
    ['a', { x: 1 }],
    ['b', {}],
  ]);
  t.same(outcome, {
    results: [
      { ok: true, result: 'a' },
      { ok: true, result: 'b' },
    ],
    completed: 2,
    failed: 0,
    skipped: 0,
  });
});

t.test('batch: stop_on_error (the default) skips the items after a failure; they never run', async (t) => {
  const ran: string[] = [];
  const items = { commands: [{ name: 'a' }, { name: 'bad' }, { name: 'c' }, { name: 'd' }] };
  const runItem = (name: string) => (ran.push(name), name === 'bad' ? fail('no') : ok(name));
  t.same(runBatch(items, runItem), {
    results: [
      { ok: true, result: 'a' },
      { ok: false, error: { code: 'GAME_REJECTED', message: 'no' } },
      { ok: false, skipped: true },
      { ok: false, skipped: true },
    ],
    completed: 1,
    failed: 1,
    skipped: 2,
  });
  t.same(ran, ['a', 'bad']);
  ran.length = 0;
  t.same(runBatch({ ...items, stop_on_error: true }, runItem), runBatch(items, runItem), 'true is the default');
  ran.length = 0;
  t.same(runBatch({ ...items, stop_on_error: false }, runItem), {
    results: [
      { ok: true, result: 'a' },
      { ok: false, error: { code: 'GAME_REJECTED', message: 'no' } },
      { ok: true, result: 'c' },
      { ok: true, result: 'd' },
    ],
    completed: 3,
    failed: 1,
    skipped: 0,
  });
  t.same(ran, ['a', 'bad', 'c', 'd'], 'stop_on_error false: every item runs');
});

t.test('batch: progress hears items run of items after each item that ran, none for a skipped one (decisions §14)', async (t) => {
  const heard: Array<[number, number]> = [];
  const request = { commands: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }] };
  runBatch(
    request,
    (name) => (name === 'c' ? fail('c failed') : ok(name)),
    (done, total) => heard.push([done, total]),
  );
  t.same(heard, [
    [1, 4],
    [2, 4],
    [3, 4],
  ]);
  t.doesNotThrow(() => runBatch(request, (name) => ok(name)), 'progress is optional');
});

t.test('batch: an item that settles later still ran in the frame; the answer waits for it', async (t) => {
  const ran: string[] = [];
  let settle!: (o: Outcome<unknown>) => void;
  const later = new Promise<Outcome<unknown>>((resolve) => (settle = resolve));
  const outcome = runBatch({ commands: [{ name: 'slow' }, { name: 'b' }, { name: 'c' }] }, (name) => {
    ran.push(name);
    if (name === 'slow') return later;
    return name === 'b' ? fail('b failed') : ok(name);
  });
  t.ok(outcome instanceof Promise);
  t.same(ran, ['slow', 'b'], 'every item up to the failure ran in the frame; a pending item does not stop the batch');
  settle(fail('slow failed'));
  t.same(await outcome, {
    results: [
      { ok: false, error: { code: 'GAME_REJECTED', message: 'slow failed' } },
      { ok: false, error: { code: 'GAME_REJECTED', message: 'b failed' } },
      { ok: false, skipped: true },
    ],
    completed: 0,
    failed: 2,
    skipped: 1,
  });
});

function fakes(options: { answer?: Partial<PoolAnswer>; after?: Partial<PoolAnswer>; framed?: Partial<QueueAnswer> } = {}) {
  const submitted: unknown[][] = [];
  const pooled: unknown[][] = [];
  const settled = Promise.resolve();
  const queue = {
    submit: (...args: unknown[]) => {
      submitted.push(args);
      return Promise.resolve({ outcome: ok('framed'), queueWaitMs: 7, runMs: 3, settled, ...options.framed } as QueueAnswer);
    },
  };
  let calls = 0;
  const pool = {
    run: (...args: unknown[]) => {
      pooled.push(args);
      const answer = calls++ === 0 && options.answer ? options.answer : (options.after ?? {});
      return Promise.resolve({ outcome: ok('pooled'), runMs: 5, lost: false, ...answer } as PoolAnswer);
    },
  } as unknown as CommandPool;
  return { queue, pool, submitted, pooled, settled };
}

const def = (fields: Partial<CommandDef>) => ({ name: 'cmd', runsOnGameThread: false, ...fields }) as unknown as CommandDef;

t.test('execute: a command that runs off the game thread runs on the pool only, with the request slot, its client and its progress', async (t) => {
  const f = fakes();
  const slot = { release: () => {} };
  const client = { destroyed: false };
  const progress = () => {};
  const result = await execute(def({}), { x: 1 }, caller, f.queue, f.pool, slot as never, client, progress);
  t.equal(f.pooled.length, 1);
  t.same(f.pooled[0]!.slice(0, 2), [{ command: 'cmd', args: { x: 1 }, caller }, slot]);
  t.equal(f.pooled[0]![2], client, 'the client: a task not started when it leaves never starts');
  t.equal(f.pooled[0]![3], progress, 'the progress sink');
  t.same(f.submitted, [], 'nothing queued for the game thread');
  t.same(result, { outcome: ok('pooled'), queueWaitMs: 0, runMs: 5, settled: null });
});

t.test('execute: a worker lost mid-command queues the command cleanup phase, when it has one', async (t) => {
  const lost = fakes({ answer: { lost: true, outcome: fail('worker lost') } });
  const result = await execute(def({ onWorkerLost: 'cleanup' }), {}, caller, lost.queue, lost.pool);
  t.same(lost.submitted, [['cmd', 'cleanup', null, caller]]);
  t.same(result.outcome, fail('worker lost'), 'the answer is still the loss');
  const noCleanup = fakes({ answer: { lost: true } });
  await execute(def({}), {}, caller, noCleanup.queue, noCleanup.pool);
  t.same(noCleanup.submitted, [], 'no cleanup phase: nothing queued');
  const fine = fakes();
  await execute(def({ onWorkerLost: 'cleanup' }), {}, caller, fine.queue, fine.pool);
  t.same(fine.submitted, [], 'the worker did not die: nothing queued');
});

t.test('execute: a game-thread command is queued straight (with its frame items); without a pool step its answer is the frame answer', async (t) => {
  const f = fakes();
  const client = { destroyed: false };
  const progress = () => {};
  const result = await execute(def({ runsOnGameThread: true }), { a: 1 }, caller, f.queue, f.pool, undefined, client, progress);
  t.same(
    f.submitted.map((args) => args.slice(0, 5)),
    [['cmd', 'run', { a: 1 }, caller, 1]],
    'one item by default',
  );
  t.equal(f.submitted[0]![5], progress, 'with its progress sink');
  t.equal(f.submitted[0]![6], client, 'and its client');
  t.same(f.pooled, []);
  t.equal(result.settled, f.settled, 'the frame answer as it is, settled promise included');
  t.same(result.outcome, ok('framed'));
  const batch = fakes();
  await execute(def({ runsOnGameThread: true, frameItems: (args: { n: number }) => args.n } as never), { n: 12 }, caller, batch.queue, batch.pool);
  t.equal(batch.submitted[0]![4], 12, 'frameItems counts what it weighs in a frame');
});

t.test('execute: a pool step after the frame gets the frame value; times add up', async (t) => {
  const f = fakes({ framed: { outcome: ok({ tiles: 3 }) }, answer: { outcome: ok('encoded'), runMs: 5 } });
  const progress = () => {};
  const result = await execute(def({ runsOnGameThread: true, pool: () => {} }), { a: 1 }, caller, f.queue, f.pool, undefined, { destroyed: true }, progress);
  t.same(
    f.pooled,
    [[{ command: 'cmd', args: { a: 1 }, caller, frameValue: { tiles: 3 } }, undefined, undefined, progress]],
    'started: no client to leave it, the same progress',
  );
  t.strictSame(result, { outcome: ok('encoded'), queueWaitMs: 7, runMs: 8, settled: null }, 'no place when the frame had none');
  const placed = fakes({ framed: { outcome: ok(1), place: { tick: 4, order: 2 } } });
  const withPlace = await execute(def({ runsOnGameThread: true, pool: () => {} }), {}, caller, placed.queue, placed.pool);
  t.same(withPlace.place, { tick: 4, order: 2 }, "the frame step's place stays with the answer");
  const failed = fakes({ framed: { outcome: fail('frame failed') } });
  const answer = await execute(def({ runsOnGameThread: true, pool: () => {} }), {}, caller, failed.queue, failed.pool);
  t.same(failed.pooled, [], 'a failed frame skips the pool step');
  t.same(answer.outcome, fail('frame failed'));
});
