// The dispatcher in one thread: the main-loop half (GameQueue) and the game-thread half (drainer)
// joined by a MessageChannel, with frames driven by hand.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import t from 'tap';
import type { CommandDef, FrameEnv } from '../../src/commands/define.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { createCollector } from '../../src/events/collector.ts';
import type { EventBatch } from '../../src/shared/protocol.ts';
import { createDrainer } from '../../src/dispatch/drain.ts';
import { drainerPort } from './drainer-port.ts';
import { badArgs } from '../../src/errors/bridge-error.ts';
import { GameQueue, TIMEOUT_MESSAGE } from '../../src/dispatch/game-queue.ts';
import { DEFAULT_TIMINGS, LIMITS, type Timings } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { GameModule } from '../../src/shared/game-module.ts';
import type { ActionMessage, ActionReply } from '../../src/shared/protocol.ts';
import { hFrameDuration, hFrameItems, hQueueWait, readHistogram } from '../../src/shared/histograms.ts';
import {
  createSharedState,
  ENTRY_EXPIRED,
  ENTRY_FREE,
  ENTRY_QUEUED,
  ENTRY_STARTED,
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
  more: {
    phases?: Record<string, (env: FrameEnv<unknown>, input: any) => unknown>;
    /** A real collector on the dispatcher port, its batches given to this as the queue gets them. */
    onEvents?: (batch: EventBatch) => void;
    maxEventsPerFrame?: number;
    onEnv?: (env: FrameEnv<unknown>) => void;
  } = {},
) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const all = { ...DEFAULT_TIMINGS, ...timings };
  const queue = new GameQueue(port1, shared, all, more.onEvents);
  const ran: unknown[] = [];
  const def = {
    name: 'probe',
    frame: (env: FrameEnv<unknown>) => (more.onEnv?.(env), ran.push(env.args), frame(env.args)),
    phases: more.phases,
  } as unknown as CommandDef;
  let ticks = 0;
  const game = { currentTick: () => ticks } as unknown as GameModule;
  const events = more.onEvents
    ? createCollector({
        kinds: new Set(['ping', 'world_loaded']),
        currentTick: () => ticks,
        send: (batch) => port2.postMessage(batch),
        warn: () => {},
        maxPerFrame: more.maxEventsPerFrame,
      })
    : undefined;
  const drainer = createDrainer({
    port: port2,
    shared,
    game,
    commands: new Map([
      ['probe', def],
      ['batch', COMMANDS.find((command) => command.name === 'batch')!],
    ]),
    timings: all,
    events,
  });
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
  t.ok(answer.queueWaitMs >= 45 && answer.queueWaitMs < 10_000, `waited ${answer.queueWaitMs} ms`);
  t.equal(answer.runMs, 0, 'it never ran');
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
  const answer = await pending;
  t.match(answer.outcome, { ok: false, code: 'MAIN_THREAD_TIMEOUT' });
  t.ok(answer.queueWaitMs >= 30 && answer.queueWaitMs < 10_000, `waited ${answer.queueWaitMs} ms`);
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
  t.ok(answer.queueWaitMs >= 0 && answer.queueWaitMs < 10_000, `waited ${answer.queueWaitMs} ms before it started`);
  t.ok(answer.runMs >= 50 && answer.runMs < 10_000, `ran ${answer.runMs} ms when the 60 ms backstop answered`);
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
  t.same((await pending).outcome, { ok: false, code: 'BUSY', message: 'the bridge is shutting down; nothing reached the world, retry later' });
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
  t.equal(drainer.carrying, true, 'the entry that did not fit is carried');
  t.equal(Atomics.load(shared.control, kQueued), 2, 'the carried entry still counts as queued, beside the one on the port');
  t.equal(shared.stats[sItems], 256);
  t.equal(shared.stats[sFullFrames], 1, '256 items is a full frame');
  drainer.drainFrame();
  t.same(ran, ['a200', 'b56', 'c100', 'd1'], 'the carried action runs first, then the rest in order');
  t.equal(drainer.carrying, false, 'nothing carried once it ran');
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
  const batches: EventBatch[] = [];
  const { queue, drainer, game, shared, timings } = setup(t, {}, (args) => args, { onEvents: (batch) => batches.push(batch), onEnv: (env) => seen.push(env) });
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
  // Emitted after the answer left: it waits for the end of the next frame (or the next answer).
  env.emit('world_loaded', { a: 1 });
  await tick();
  t.same(batches, []);
  drainer.drainFrame();
  await tick();
  t.same(
    batches.map((b) => b.events.map((e) => [e.kind, e.fields])),
    [[['world_loaded', { a: 1 }]]],
    'sent at the end of the frame',
  );
  drainer.drainFrame();
  await tick();
  t.equal(batches.length, 1, 'none for a frame that emitted nothing');
});

t.test('decisions §7: the events a command emitted reach the main loop before its answer, in the order emitted', async (t) => {
  const order: string[] = [];
  const { queue, drainer } = setup(t, {}, (args) => args, {
    onEvents: (batch) => order.push(`events ${batch.events.map((e) => e.fields!.n).join(',')} dropped ${batch.dropped}`),
    maxEventsPerFrame: 3,
    onEnv: (env) => {
      const n = env.args as number;
      env.emit('ping', { n: n * 10 });
      env.emit('ping', { n: n * 10 + 1 });
    },
  });
  const answers = [1, 2, 3].map((n) => queue.submit('probe', 'run', n, caller).then(() => order.push(`answer ${n}`)));
  await tick();
  drainer.drainFrame();
  await Promise.all(answers);
  // The frame's bound (3 here) holds across the answers: the fourth event on is dropped, counted.
  t.same(order, ['events 10,11 dropped 0', 'answer 1', 'events 20 dropped 1', 'answer 2', 'events  dropped 2', 'answer 3']);
});

t.test("the first frame's events, sent before the queue exists, are taken when it is made", async (t) => {
  const { port1, port2 } = new MessageChannel();
  t.teardown(() => (port1.close(), port2.close()));
  port2.postMessage({ type: 'events', events: [{ kind: 'world_generated', tick: 0, fields: {}, kingdomIds: [] }], at: 0, dropped: 0 } satisfies EventBatch);
  const batches: EventBatch[] = [];
  new GameQueue(port1, createSharedState(), DEFAULT_TIMINGS, (batch) => batches.push(batch));
  t.equal(batches.length, 1, 'at once, not on a later turn of the loop');
  t.equal(batches[0]!.events[0]!.kind, 'world_generated');
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
  started = Date.now();
  await queue.drained(5_000);
  t.ok(Date.now() - started < 1_000, 'queued but not started: at once');
  await tick();
  drainer.drainFrame();
  started = Date.now();
  await queue.drained(60);
  t.ok(Date.now() - started >= 55, 'gives up after the time asked');
  setTimeout(() => finish('done'), 30);
  started = Date.now();
  const waiting = queue.drained(5_000);
  t.ok(Date.now() - started < 1_000, 'the wait polls: it never holds the main loop');
  await waiting;
  t.ok(Date.now() - started < 4_000, 'over once the action ended, long before the time asked');
  t.same((await pending).outcome, { ok: true, value: 'done' }, 'resolved once the action ended');
});

/**
 * The game-thread half alone: the test plays the main loop on the other end of the port, and a
 * hand-driven clock makes every timing figure exact. `lookupMs`: what finding a command's handler
 * costs the dispatcher (it stands for the dispatcher's own work); a handler stalls by moving the clock.
 */
function drainerAlone(t: Tap.Test, timings: Partial<Timings> = {}) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const clock = { ms: 1_000_000, lookupMs: 0 };
  const ran: unknown[] = [];
  const def = {
    name: 'probe',
    frame: (env: FrameEnv<{ stallMs?: number }>) => {
      ran.push(env.args);
      clock.ms += env.args?.stallMs ?? 0;
      return 'ran';
    },
  } as unknown as CommandDef;
  class Costly extends Map<string, CommandDef> {
    override get(name: string) {
      clock.ms += clock.lookupMs;
      return super.get(name);
    }
  }
  const game = { currentTick: () => 0 } as unknown as GameModule;
  const drainer = createDrainer({
    port: port2,
    shared,
    game,
    commands: new Costly([['probe', def]]),
    timings: { ...DEFAULT_TIMINGS, ...timings },
    now: () => clock.ms,
  });
  t.teardown(() => {
    port1.close();
    port2.close();
  });
  let nextCell = 0;
  /** Queues one action as the main loop would; `state`: its entry word (the main loop may have expired it). */
  const send = (fields: Partial<ActionMessage> = {}, state = ENTRY_QUEUED): ActionMessage => {
    const cell = nextCell++;
    const message: ActionMessage = { cell, id: 100 + cell, command: 'probe', phase: 'run', input: {}, caller, enqueuedAt: clock.ms, items: 1, ...fields };
    Atomics.store(shared.entries, cell, state);
    Atomics.add(shared.control, kQueued, 1);
    port1.postMessage(message);
    return message;
  };
  const replies = (): ActionReply[] => {
    const out: ActionReply[] = [];
    for (let r = receiveMessageOnPort(port1); r; r = receiveMessageOnPort(port1)) out.push(r.message as ActionReply);
    return out;
  };
  return { drainer, shared, clock, ran, send, replies };
}

t.test('drainer replies: expired when it finds the deadline passed, skipped when the main loop expired the entry first', async (t) => {
  const { drainer, shared, clock, ran, send, replies } = drainerAlone(t, { queueDeadlineMs: 100 });
  const late = send({ enqueuedAt: clock.ms - 101 }); // waited more than the 100 ms deadline
  const onTime = send({ enqueuedAt: clock.ms - 100, input: 'on time' }); // exactly the deadline: not more, so it runs
  const taken = send({}, ENTRY_EXPIRED); // the main loop's deadline timer (or close) won the race
  const lateAndTaken = send({ enqueuedAt: clock.ms - 500 }, ENTRY_EXPIRED);
  await tick();
  drainer.drainFrame();
  await tick();
  t.same(replies(), [
    { kind: 'expired', cell: late.cell, id: late.id },
    { kind: 'done', cell: onTime.cell, id: onTime.id, outcome: { ok: true, value: 'ran' }, runMs: 0 },
    { kind: 'skipped', cell: taken.cell, id: taken.id },
    { kind: 'skipped', cell: lateAndTaken.cell, id: lateAndTaken.id },
  ]);
  t.same(ran, ['on time'], 'only the action in time ran');
  t.equal(Atomics.load(shared.entries, late.cell), ENTRY_EXPIRED, 'the game thread expired it itself: it can never start');
  t.equal(Atomics.load(shared.entries, onTime.cell), ENTRY_STARTED);
  t.equal(Atomics.load(shared.entries, taken.cell), ENTRY_EXPIRED);
  t.equal(shared.startedAt[onTime.cell], clock.ms, 'its start time is published for the backstop');
});

t.test('frame figures on a hand-driven clock: handler time is not dispatcher overhead; run, queue wait and frame time', async (t) => {
  const { drainer, shared, clock, send, replies } = drainerAlone(t);
  clock.lookupMs = 3;
  send({ enqueuedAt: clock.ms - 250, input: { stallMs: 40 } });
  send({ enqueuedAt: clock.ms - 250, input: { stallMs: 40 } });
  await tick();
  drainer.drainFrame(500);
  await tick();
  t.same(
    replies().map((r) => (r.kind === 'done' ? r.runMs : r.kind)),
    [43, 43],
    'runMs: from the start to the answer (the lookup and the 40 ms stall)',
  );
  t.equal(shared.stats[sOverheadMs], 6, 'overhead: the two 3 ms lookups, not the 80 ms the handlers stalled');
  t.equal(shared.stats[sBusyFrames], 1);
  const wait = readHistogram(shared.histograms, hQueueWait);
  t.equal(wait.count, 2);
  t.ok(Math.abs(wait.sum - (0.25 + 0.293)) < 1e-9, `queue waits 250 and 293 ms, in seconds: ${wait.sum}`);
  const duration = readHistogram(shared.histograms, hFrameDuration);
  t.ok(Math.abs(duration.sum - 0.586) < 1e-9, `frame time: the 500 ms update and the 86 ms drain, in seconds: ${duration.sum}`);
});

t.test('full frames: their overhead is summed and its largest kept', async (t) => {
  const { drainer, shared, clock, send } = drainerAlone(t);
  const frame = async (lookupMs: number, items: number) => {
    clock.lookupMs = lookupMs;
    send({ items });
    await tick();
    drainer.drainFrame();
  };
  await frame(5, 256); // 256 items: full
  await frame(2, 256);
  t.equal(shared.stats[sFullFrames], 2);
  t.equal(shared.stats[sFullOverheadMs], 7);
  t.equal(shared.stats[sFullOverheadMaxMs], 5, 'a smaller full frame after a larger one keeps the larger');
  await frame(9, 1); // not full: counted in the overhead only
  t.equal(shared.stats[sFullFrames], 2);
  t.equal(shared.stats[sFullOverheadMaxMs], 5);
  t.equal(shared.stats[sOverheadMs], 16);
});

/** The main-loop half alone: the test plays the game thread on the other end of the port. */
function queueAlone(t: Tap.Test, timings: Partial<Timings> = {}) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const queue = new GameQueue(port1, shared, { ...DEFAULT_TIMINGS, ...timings });
  t.teardown(() => {
    port1.close();
    port2.close();
  });
  /** What the game thread receives next. */
  const received = async (): Promise<ActionMessage> => {
    await tick();
    return receiveMessageOnPort(port2)!.message as ActionMessage;
  };
  const answered = <T>(promise: Promise<T>) => {
    const state = { value: undefined as T | undefined };
    void promise.then((v) => (state.value = v));
    return state;
  };
  return { queue, shared, received, answered, reply: (r: ActionReply) => port2.postMessage(r) };
}

t.test('game queue: a reply for a cell with no entry, or for an older id on the cell, is ignored', async (t) => {
  const place = { tick: 12, order: 3 };
  const { queue, shared, received, answered, reply } = queueAlone(t);
  const pending = answered(queue.submit('probe', 'run', 'x', caller));
  const message = await received();
  t.equal(message.items, 1, 'a lone command counts one item');
  reply({ kind: 'done', cell: message.cell + 1, id: message.id, outcome: { ok: true, value: 'nobody' }, runMs: 1, place });
  reply({ kind: 'done', cell: message.cell, id: message.id + 1, outcome: { ok: true, value: 'stale' }, runMs: 1, place });
  await sleep(10);
  t.equal(pending.value, undefined, 'not answered by replies that are not its own');
  t.equal(queue.pending, 1);
  shared.startedAt[message.cell] = message.enqueuedAt + 25;
  reply({ kind: 'done', cell: message.cell, id: message.id, outcome: { ok: true, value: 'mine' }, runMs: 7, place });
  await sleep(10);
  t.same(pending.value, { outcome: { ok: true, value: 'mine' }, queueWaitMs: 25, runMs: 7, settled: null, place }, 'the place comes with the answer');
  t.equal(queue.pending, 0);
});

t.test('game queue: a deadline that finds the entry expired by the game thread waits for its expired reply', async (t) => {
  const { queue, shared, received, answered, reply } = queueAlone(t, { queueDeadlineMs: 20, handlerBackstopMs: 30 });
  const pending = answered(queue.submit('probe', 'run', 'x', caller));
  const message = await received();
  Atomics.store(shared.entries, message.cell, ENTRY_EXPIRED); // the game thread's compare-and-swap won
  await sleep(80); // past the deadline and past where a backstop would have fired
  t.equal(pending.value, undefined, 'no answer yet: it never started, so no backstop applies');
  reply({ kind: 'expired', cell: message.cell, id: message.id });
  await sleep(10);
  t.match(pending.value, { outcome: { ok: false, code: 'MAIN_THREAD_TIMEOUT', message: TIMEOUT_MESSAGE(20) }, runMs: 0, settled: null });
  t.ok(pending.value!.queueWaitMs >= 20 && pending.value!.queueWaitMs < 10_000, `waited ${pending.value!.queueWaitMs} ms`);
  t.equal(queue.pending, 0);
  t.equal(Atomics.load(shared.entries, message.cell), ENTRY_FREE);
});

t.test('an answer whose events cannot be copied still arrives, after the events that can', async (t) => {
  const order: string[] = [];
  const { queue, drainer } = setup(t, {}, (args) => args, {
    onEvents: (batch) => order.push(`events ${batch.events.map((e) => e.fields!.n).join(',')} dropped ${batch.dropped}`),
    onEnv: (env) => {
      env.emit('ping', { n: 1 });
      env.emit('ping', { n: 2, f: () => 0 });
    },
  });
  const answer = queue.submit('probe', 'run', 'x', caller).then((a) => (order.push(`answer ${a.outcome.ok}`), a));
  await tick();
  drainer.drainFrame();
  const got = await Promise.race([answer, sleep(2000).then(() => null)]);
  t.ok(got, 'answered');
  t.same(order, ['events 1 dropped 1', 'answer true']);
});

/** The game-thread half with the commands given, on the world's own tick; its replies read off the port. */
function drainerWith(
  t: Tap.Test,
  frames: Record<string, { category?: string; frame: (env: FrameEnv<unknown>) => unknown }>,
  options: { clockMode?: 'realtime' | 'lockstep'; maxSavepoints?: number; warn?: (message: string) => void } = {},
) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const world = { tick: 0 };
  const game = { currentTick: () => world.tick } as unknown as GameModule;
  const commands = new Map(Object.entries(frames).map(([name, def]) => [name, { name, ...def } as unknown as CommandDef]));
  const drainer = createDrainer({ port: port2, shared, game, commands, timings: DEFAULT_TIMINGS, ...options });
  t.teardown(() => {
    port1.close();
    port2.close();
  });
  const { queue, replies } = drainerPort(port1, shared, caller);
  const send = async (command: string): Promise<void> => {
    queue(command);
    await tick();
  };
  return { drainer, shared, world, send, replies };
}

t.test('the drainer by default: the realtime clock and 16 savepoints; a handler gets both, and the maxSavepoints given', async (t) => {
  const seen: Array<FrameEnv<unknown>> = [];
  const see = { frame: (env: FrameEnv<unknown>) => void seen.push(env) };
  const plain = drainerWith(t, { see });
  await plain.send('see');
  plain.drainer.drainFrame();
  t.equal(plain.drainer.clock.mode, 'realtime');
  t.equal(seen[0]!.clock, plain.drainer.clock);
  t.equal(seen[0]!.maxSavepoints, LIMITS.maxSavepointsDefault);
  const three = drainerWith(t, { see }, { maxSavepoints: 3 });
  await three.send('see');
  three.drainer.drainFrame();
  t.equal(seen[1]!.maxSavepoints, 3);
});

t.test("a read's reply carries no place at all; an action's carries its own", async (t) => {
  const { drainer, send, replies } = drainerWith(t, { look: { category: 'read', frame: () => 1 }, act: { category: 'action', frame: () => 2 } });
  await send('look');
  await send('act');
  drainer.drainFrame();
  const [read, action] = replies();
  t.notOk('place' in read!, 'no place key on the wire');
  t.same(action!.place, { tick: 0, order: 0 });
});

t.test('places: action and control entries take one; a refusal in the frame gives its own back, and a refused read has none to give', async (t) => {
  const refused = () => {
    throw badArgs('no such tile');
  };
  const { drainer, send, replies } = drainerWith(t, {
    act: { category: 'action', frame: () => 1 },
    ctl: { category: 'control', frame: () => 2 },
    look: { category: 'read', frame: refused },
    refuse: { category: 'action', frame: refused },
  });
  for (const command of ['act', 'look', 'ctl', 'refuse', 'act']) await send(command);
  drainer.drainFrame();
  t.same(
    replies().map((reply) => reply.place ?? null),
    [{ tick: 0, order: 0 }, null, { tick: 0, order: 1 }, null, { tick: 0, order: 2 }],
  );
});

t.test('realtime: a frame that moved the tick runs the tick hooks once, with the tick reached; a throwing hook is reported', async (t) => {
  const warnings: string[] = [];
  const { drainer, world } = drainerWith(t, {}, { warn: (message) => void warnings.push(message) });
  const ticks: number[] = [];
  drainer.clock.onTick((tick) => void ticks.push(tick));
  drainer.drainFrame();
  t.same(ticks, [], 'the tick did not move');
  world.tick = 3;
  drainer.drainFrame();
  drainer.drainFrame();
  t.same(ticks, [3]);
  drainer.clock.onTick(() => {
    throw new Error('a broken recorder');
  });
  world.tick = 4;
  drainer.drainFrame();
  t.same(ticks, [3, 4]);
  t.same(warnings, ['a clock hook threw and was removed: a broken recorder'], 'through the warn given to the drainer');
});

t.test('lockstep: a drain runs no tick hook; a tick closed through the clock steps the jobs, publishes the tick, then runs them', async (t) => {
  const { drainer, shared, world, send, replies } = drainerWith(
    t,
    {
      // A command that moves the world without closing a tick (as a test game may): no hook runs.
      move: { category: 'control', frame: () => (world.tick = 9) },
      tick_once: {
        category: 'control',
        frame: (env) => {
          world.tick++;
          env.clock.endTick();
        },
      },
    },
    { clockMode: 'lockstep' },
  );
  let steps = 0;
  drainer.jobs.register({ step: () => (steps++, false) });
  const seen: Array<[number, number, number]> = [];
  drainer.clock.onTick((tick) => void seen.push([tick, steps, Atomics.load(shared.control, kTick)]));
  await send('move');
  drainer.drainQueued();
  t.same(seen, [], 'no hook from a drain');
  await send('tick_once');
  drainer.drainQueued();
  t.same(seen, [[10, 1, 10]], 'the jobs stepped once and the tick published before the hooks ran');
  t.same(
    replies().map((reply) => reply.outcome.ok),
    [true, true],
    'closing a tick needs no event collector',
  );
  drainer.jobs.cancelAll();
});
