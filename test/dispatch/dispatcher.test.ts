// The dispatcher in one thread: the main-loop half (GameQueue) and the game-thread half (drainer)
// joined by a MessageChannel, with frames driven by hand.
import { MessageChannel } from 'node:worker_threads';
import t from 'tap';
import type { CommandDef, FrameEnv } from '../../src/commands/define.ts';
import type { Collector } from '../../src/events/collector.ts';
import { createDrainer } from '../../src/dispatch/drain.ts';
import { GameQueue } from '../../src/dispatch/game-queue.ts';
import { DEFAULT_TIMINGS, type Timings } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { GameModule } from '../../src/shared/game-module.ts';
import { hFrameDuration, hFrameItems, hQueueWait, readHistogram } from '../../src/shared/histograms.ts';
import {
  createSharedState,
  ENTRY_FREE,
  kFrames,
  kQueued,
  kTick,
  sActions,
  sBusyFrames,
  sFrames,
  sFullFrames,
  sFullOverheadMaxMs,
  sFullOverheadMs,
  sItems,
  sOverheadMs,
} from '../../src/shared/layout.ts';

const caller = { agentId: 'legacy' } as CallerContext;
const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(
  t: Tap.Test,
  timings: Partial<Timings> = {},
  frame: (args: any) => unknown = (args) => args,
  more: { phases?: Record<string, (env: FrameEnv<unknown>, input: any) => unknown>; events?: Collector; onEnv?: (env: FrameEnv<unknown>) => void } = {},
) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const all = { ...DEFAULT_TIMINGS, ...timings };
  const queue = new GameQueue(port1, shared, all);
  const ran: unknown[] = [];
  const def = {
    name: 'probe',
    frame: (env: FrameEnv<unknown>) => (more.onEnv?.(env), ran.push(env.args), frame(env.args)),
    phases: more.phases,
  } as unknown as CommandDef;
  let ticks = 0;
  const game = { currentTick: () => ticks } as unknown as GameModule;
  const drainer = createDrainer({ port: port2, shared, game, commands: new Map([['probe', def]]), timings: all, events: more.events });
  t.teardown(() => {
    port1.close();
    port2.close();
  });
  return { queue, drainer, ran, shared, game, timings: all, setTicks: (n: number) => (ticks = n) };
}
declare namespace Tap {
  type Test = import('tap').Test;
}

t.test('at most 32 actions per frame, in order; the rest stay queued', async (t) => {
  const { queue, drainer, ran } = setup(t);
  const answers = Array.from({ length: 70 }, (_, i) => queue.submit('probe', 'run', i, caller));
  await tick();
  drainer.drainFrame();
  t.equal(ran.length, 32);
  drainer.drainFrame();
  t.equal(ran.length, 64);
  drainer.drainFrame();
  t.equal(ran.length, 70);
  t.same(
    ran,
    Array.from({ length: 70 }, (_, i) => i),
    'FIFO',
  );
  const values = await Promise.all(answers);
  t.same(
    values.map((a) => a.outcome),
    Array.from({ length: 70 }, (_, i) => ({ ok: true, value: i })),
  );
  await tick();
  t.equal(queue.pending, 0, 'every entry released');
});

t.test('the tick is published in shared memory each frame', async (t) => {
  const { drainer, shared, setTicks } = setup(t);
  setTicks(41);
  drainer.drainFrame();
  t.equal(Atomics.load(shared.control, kTick), 41);
});

t.test('MAIN_THREAD_TIMEOUT: the deadline is decided before start, and an expired action never runs', async (t) => {
  const { queue, drainer, ran } = setup(t, { queueDeadlineMs: 50 });
  const started = Date.now();
  const answer = await queue.submit('probe', 'run', 'late', caller);
  t.ok(Date.now() - started >= 45);
  t.match(answer.outcome, { ok: false, code: 'MAIN_THREAD_TIMEOUT', message: /waited more than 0\.05 s for a game frame and was dropped before it ran/ });
  drainer.drainFrame(); // the game thread wakes up after its stall
  t.same(ran, [], 'the expired action did not run');
  await tick();
  t.equal(queue.pending, 0, 'and its entry was let go');
});

t.test('the game thread expires what it finds past the deadline itself', async (t) => {
  const { queue, drainer, ran } = setup(t, { queueDeadlineMs: 30 });
  const pending = queue.submit('probe', 'run', 'late', caller);
  const until = Date.now() + 40;
  while (Date.now() < until) {
    // a stalled main loop: its own timer cannot fire
  }
  drainer.drainFrame();
  t.same(ran, []);
  t.match((await pending).outcome, { ok: false, code: 'MAIN_THREAD_TIMEOUT' });
});

t.test('a started action is never cut off by the queue deadline', async (t) => {
  let finish!: (v: string) => void;
  const { queue, drainer } = setup(t, { queueDeadlineMs: 30, handlerBackstopMs: 10_000 }, () => new Promise((resolve) => (finish = resolve)));
  const pending = queue.submit('probe', 'run', 'slow', caller);
  await tick();
  drainer.drainFrame();
  await sleep(80); // well past the 30 ms deadline
  finish('done');
  t.same((await pending).outcome, { ok: true, value: 'done' });
});

t.test('the handler backstop answers 504 but holds the entry until the action ends', async (t) => {
  let finish!: (v: string) => void;
  const { queue, drainer } = setup(t, { queueDeadlineMs: 20, handlerBackstopMs: 60 }, () => new Promise((resolve) => (finish = resolve)));
  const started = Date.now();
  const pending = queue.submit('probe', 'run', 'stuck', caller);
  await tick();
  drainer.drainFrame();
  const answer = await pending;
  t.ok(Date.now() - started >= 55);
  t.match(answer.outcome, { ok: false, code: 'MAIN_THREAD_TIMEOUT', message: /0\.06 s handler backstop/ });
  t.ok(answer.settled, 'the answer says the work is still running');
  let settled = false;
  void answer.settled!.then(() => (settled = true));
  await sleep(20);
  t.equal(settled, false);
  t.equal(queue.pending, 1);
  finish('late');
  await sleep(10);
  t.equal(settled, true, 'settles when the action really ends');
  t.equal(queue.pending, 0);
});

t.test('a throwing handler is GAME_CRASH with the exception, and the next action runs', async (t) => {
  const { queue, drainer } = setup(t, {}, (args) => {
    if (args === 'boom') throw new RangeError('bad thing');
    return args;
  });
  const a = queue.submit('probe', 'run', 'boom', caller);
  const b = queue.submit('probe', 'run', 'fine', caller);
  await tick();
  drainer.drainFrame();
  t.match((await a).outcome, { ok: false, code: 'GAME_CRASH', exception: { type: 'RangeError', message: 'bad thing', stack_top: /at / } });
  t.same((await b).outcome, { ok: true, value: 'fine' });
});

t.test('close answers queued actions BUSY; they never run', async (t) => {
  const { queue, drainer, ran } = setup(t);
  const pending = queue.submit('probe', 'run', 'x', caller);
  queue.close();
  t.match((await pending).outcome, { ok: false, code: 'BUSY' });
  drainer.drainFrame();
  t.same(ran, []);
  t.match((await queue.submit('probe', 'run', 'y', caller)).outcome, { ok: false, code: 'BUSY', message: /the bridge is shutting down/ });
  await sleep(20);
  t.equal(queue.pending, 0, 'the skipped entry is let go once the game thread has seen it');
});

t.test('close lets a started action finish with its own answer', async (t) => {
  let finish!: (v: string) => void;
  const { queue, drainer } = setup(t, {}, () => new Promise((resolve) => (finish = resolve)));
  const pending = queue.submit('probe', 'run', 'x', caller);
  await tick();
  drainer.drainFrame();
  queue.close();
  finish('done');
  t.same((await pending).outcome, { ok: true, value: 'done' });
});

t.test('a frame runs at most 256 items; an action that does not fit waits, first in line next frame', async (t) => {
  const { queue, drainer, ran, shared } = setup(t);
  const answers = [
    queue.submit('probe', 'run', 'a200', caller, 200),
    queue.submit('probe', 'run', 'b56', caller, 56),
    queue.submit('probe', 'run', 'c100', caller, 100),
    queue.submit('probe', 'run', 'd1', caller),
  ];
  await tick();
  t.equal(Atomics.load(shared.control, kQueued), 4, 'queued actions are counted in shared memory');
  drainer.drainFrame();
  t.same(ran, ['a200', 'b56'], 'exactly 256 items fit in one frame');
  t.equal(shared.stats[sItems], 256);
  t.equal(shared.stats[sFullFrames], 1, '256 items is a full frame');
  drainer.drainFrame();
  t.same(ran, ['a200', 'b56', 'c100', 'd1'], 'the carried action runs first, then the rest in order');
  t.equal(shared.stats[sItems], 357);
  t.equal(shared.stats[sActions], 4);
  t.equal(Atomics.load(shared.control, kQueued), 0);
  for (const answer of answers) t.equal((await answer).outcome.ok, true);
  const items = readHistogram(shared.histograms, hFrameItems);
  t.equal(items.count, 2, 'one items observation a frame');
  t.equal(items.sum, 357);
});

t.test('frame statistics: busy and full frames, actions, dispatcher overhead; frames and ticks counted', async (t) => {
  const { queue, drainer, shared, setTicks } = setup(t);
  const { stats, control } = shared;
  drainer.drainFrame();
  t.equal(stats[sFrames], 1);
  t.equal(Atomics.load(control, kFrames), 1);
  t.equal(stats[sBusyFrames], 0, 'a frame with nothing to drain is not busy');
  t.equal(stats[sOverheadMs], 0);
  const answers: Array<Promise<unknown>> = [];
  for (let i = 0; i < 3; i++) answers.push(queue.submit('probe', 'run', i, caller));
  await tick();
  drainer.drainFrame();
  t.equal(stats[sBusyFrames], 1);
  t.equal(stats[sActions], 3);
  t.equal(stats[sFullFrames], 0, '3 actions is not a full frame');
  t.ok(stats[sOverheadMs]! > 0, 'the dispatcher time of a busy frame is counted');
  for (let i = 0; i < 40; i++) answers.push(queue.submit('probe', 'run', i, caller));
  await tick();
  const overheadBefore = stats[sOverheadMs]!;
  drainer.drainFrame();
  t.equal(stats[sActions], 35);
  t.equal(stats[sFullFrames], 1, '32 actions make a full frame');
  t.ok(stats[sFullOverheadMs]! > 0);
  t.ok(stats[sOverheadMs]! > overheadBefore);
  t.equal(stats[sFullOverheadMaxMs], stats[sFullOverheadMs], 'one full frame: its overhead is the largest');
  drainer.drainFrame();
  t.equal(stats[sFullFrames], 1, 'the 8 left are not a full frame');
  t.equal(stats[sFrames], 4);
  t.equal(Atomics.load(control, kFrames), 4);
  setTicks(7);
  drainer.drainFrame();
  t.equal(Atomics.load(control, kTick), 7);
  await Promise.all(answers); // every entry answered: no deadline timer left behind
});

t.test('the frame histograms: queue wait once an action, frame duration with the update time', async (t) => {
  const { queue, drainer, shared } = setup(t);
  const answers = Array.from({ length: 3 }, (_, i) => queue.submit('probe', 'run', i, caller));
  await tick();
  drainer.drainFrame(500);
  await Promise.all(answers);
  t.equal(readHistogram(shared.histograms, hQueueWait).count, 3);
  const duration = readHistogram(shared.histograms, hFrameDuration);
  t.equal(duration.count, 1);
  t.ok(duration.sum >= 0.5 && duration.sum < 5, 'the 500 ms update is counted, in seconds');
  drainer.drainFrame();
  t.equal(readHistogram(shared.histograms, hFrameDuration).count, 2);
  t.ok(readHistogram(shared.histograms, hFrameDuration).sum < duration.sum + 1, 'no update time by default');
});

t.test('answers say how long the action waited and ran', async (t) => {
  const { queue, drainer } = setup(t, {}, () => {
    const until = Date.now() + 15;
    while (Date.now() < until) {
      // busy: the game thread runs the action
    }
    return 'ran';
  });
  const pending = queue.submit('probe', 'run', 'x', caller);
  await sleep(20);
  drainer.drainFrame();
  const answer = await pending;
  t.same(answer.outcome, { ok: true, value: 'ran' });
  t.ok(answer.queueWaitMs >= 15 && answer.queueWaitMs < 10_000, `waited ${answer.queueWaitMs} ms`);
  t.ok(answer.runMs >= 14 && answer.runMs < 10_000, `ran ${answer.runMs} ms`);
  t.equal(answer.settled, null);
});

t.test('phases, missing handlers, promises: every outcome is an answer', async (t) => {
  const { queue, drainer } = setup(
    t,
    {},
    (args) => (args === 'reject' ? Promise.reject(new TypeError('later')) : args === 'later' ? Promise.resolve('resolved') : args),
    {
      phases: { check: (_env, input) => `checked ${String(input)}` },
    },
  );
  const answers = [
    queue.submit('probe', 'check', 'x', caller),
    queue.submit('probe', 'nope', 'x', caller),
    queue.submit('ghost', 'run', 'x', caller),
    queue.submit('probe', 'run', 'later', caller),
    queue.submit('probe', 'run', 'reject', caller),
  ];
  await tick();
  drainer.drainFrame();
  const [phase, noPhase, noCommand, later, rejected] = await Promise.all(answers);
  t.same(phase!.outcome, { ok: true, value: 'checked x' }, 'a phase runs its own handler with the input');
  t.match(noPhase!.outcome, { ok: false, code: 'GAME_CRASH', message: 'Error: no frame handler probe.nope' });
  t.match(noCommand!.outcome, { ok: false, code: 'GAME_CRASH', message: 'Error: no frame handler ghost.run' });
  t.same(later!.outcome, { ok: true, value: 'resolved' });
  t.match(rejected!.outcome, { ok: false, code: 'GAME_CRASH', exception: { type: 'TypeError', message: 'later' } });
});

t.test('a batch runs its items in one frame, each with the frame a lone command gets', async (t) => {
  const { queue, drainer, ran } = setup(t, {}, (args: { v?: string }) => {
    if (args.v === 'boom') throw new Error('item failed');
    return args.v;
  });
  const batch = (commands: unknown[], stop_on_error?: boolean) => queue.submit('batch', 'run', { commands, stop_on_error }, caller, commands.length);
  const answers = [
    batch([{ name: 'probe', args: { v: 'one' } }, { name: 'ghost' }, { name: 'probe', args: { v: 'never' } }]),
    batch(
      [
        { name: 'probe', args: { v: 'boom' } },
        { name: 'probe', args: { v: 'two' } },
      ],
      false,
    ),
    queue.submit('batch', 'check', { commands: [] }, caller),
  ];
  await tick();
  drainer.drainFrame();
  const [first, second, notRun] = await Promise.all(answers);
  t.match(first!.outcome, {
    ok: true,
    value: {
      completed: 1,
      failed: 1,
      skipped: 1,
      results: [{ ok: true, result: 'one' }, { ok: false, error: { code: 'GAME_CRASH', message: 'Error: no frame handler ghost.run' } }, { skipped: true }],
    },
  });
  t.match(second!.outcome, {
    ok: true,
    value: {
      completed: 1,
      failed: 1,
      results: [
        { ok: false, error: { code: 'GAME_CRASH' } },
        { ok: true, result: 'two' },
      ],
    },
  });
  t.same(ran, [{ v: 'one' }, { v: 'boom' }, { v: 'two' }]);
  t.match(notRun!.outcome, { ok: false, message: /no frame handler batch\.check/ }, 'only the run phase of a batch is one');
});

t.test('a batch item that settles later: the batch answers when it does', async (t) => {
  let finish!: (v: string) => void;
  const { queue, drainer } = setup(t, {}, () => new Promise((resolve) => (finish = resolve)));
  const pending = queue.submit('batch', 'run', { commands: [{ name: 'probe' }] }, caller);
  await tick();
  drainer.drainFrame();
  finish('late');
  t.match((await pending).outcome, { ok: true, value: { completed: 1, results: [{ ok: true, result: 'late' }] } });
});

t.test('a handler gets the game, its args, the caller, the jobs, the shared state, the timings and emit; events leave each frame', async (t) => {
  const seen: Array<FrameEnv<unknown>> = [];
  const emitted: unknown[][] = [];
  let flushes = 0;
  const events = { emit: (...args: unknown[]) => emitted.push(args), flush: () => flushes++ } as unknown as Collector;
  const { queue, drainer, game, shared, timings } = setup(t, {}, (args) => args, { events, onEnv: (env) => seen.push(env) });
  const other = { agentId: 'b2' } as CallerContext;
  const pending = queue.submit('probe', 'run', { x: 1 }, other);
  await tick();
  drainer.drainFrame();
  await pending;
  const env = seen[0]!;
  t.equal(env.game, game);
  t.same(env.args, { x: 1 });
  t.same(env.caller, other);
  t.equal(env.jobs, drainer.jobs);
  t.equal(env.shared, shared);
  t.same(env.timings, timings);
  env.emit('world_loaded', { a: 1 });
  t.same(emitted, [['world_loaded', { a: 1 }]]);
  t.equal(flushes, 1, 'events flushed at the end of the frame');
  drainer.drainFrame();
  t.equal(flushes, 2, 'every frame');
});

t.test('the per-frame jobs step once a frame', async (t) => {
  const { drainer } = setup(t);
  let steps = 0;
  drainer.jobs.register({ step: () => ++steps === 2 });
  drainer.drainFrame();
  t.equal(steps, 1);
  drainer.drainFrame();
  drainer.drainFrame();
  t.equal(steps, 2, 'finished after its second step');
});

t.test('a full dispatcher answers BUSY at once, and takes actions again once entries are free', async (t) => {
  const { queue, drainer, shared } = setup(t);
  const all = Array.from({ length: 4096 }, (_, i) => queue.submit('probe', 'run', i, caller));
  t.equal(queue.pending, 4096);
  t.match((await queue.submit('probe', 'run', 'one too many', caller)).outcome, {
    ok: false,
    code: 'BUSY',
    message: 'the dispatcher queue is full; nothing reached the world, retry later',
  });
  while (queue.pending > 0) {
    await tick();
    drainer.drainFrame();
    await tick();
  }
  t.equal((await all[4095]!).outcome.ok, true);
  t.equal(Atomics.load(shared.entries, 0), ENTRY_FREE);
  const again = queue.submit('probe', 'run', 'after', caller);
  await tick();
  drainer.drainFrame();
  t.same((await again).outcome, { ok: true, value: 'after' });
});

t.test('fail answers every pending action with the failure and lets go of them', async (t) => {
  const { queue, drainer, shared } = setup(t, {}, (args) => (args === 'stuck' ? new Promise(() => {}) : args));
  const running = queue.submit('probe', 'run', 'stuck', caller);
  await tick();
  drainer.drainFrame();
  const queued = queue.submit('probe', 'run', 'queued', caller);
  const failure = { ok: false as const, code: 'GAME_CRASH' as const, message: 'the game thread died' };
  queue.fail(failure);
  t.same((await running).outcome, failure);
  t.same((await queued).outcome, failure);
  t.equal(queue.pending, 0);
  t.equal(Atomics.load(shared.entries, 0), ENTRY_FREE);
});

t.test('drained waits for started actions only, and no longer than asked', async (t) => {
  let finish!: (v: string) => void;
  const { queue, drainer } = setup(t, {}, () => new Promise((resolve) => (finish = resolve)));
  let started = Date.now();
  await queue.drained(5_000);
  t.ok(Date.now() - started < 1_000, 'nothing started: at once');
  const pending = queue.submit('probe', 'run', 'slow', caller);
  await tick();
  drainer.drainFrame();
  started = Date.now();
  await queue.drained(60);
  t.ok(Date.now() - started >= 55, 'gives up after the time asked');
  setTimeout(() => finish('done'), 30);
  await queue.drained(5_000);
  t.same((await pending).outcome, { ok: true, value: 'done' }, 'resolved once the action ended');
});
