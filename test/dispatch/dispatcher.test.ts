// The dispatcher in one thread: the main-loop half (GameQueue) and the game-thread half (drainer)
// joined by a MessageChannel, with frames driven by hand.
import { MessageChannel } from 'node:worker_threads';
import t from 'tap';
import type { CommandDef } from '../../src/commands/define.ts';
import { createDrainer } from '../../src/dispatch/drain.ts';
import { GameQueue } from '../../src/dispatch/game-queue.ts';
import { DEFAULT_TIMINGS, type Timings } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { GameModule } from '../../src/shared/game-module.ts';
import { createSharedState, kTick } from '../../src/shared/layout.ts';

const caller = { agentId: 'legacy' } as CallerContext;
const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(t: Tap.Test, timings: Partial<Timings> = {}, frame: (args: any) => unknown = (args) => args) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const all = { ...DEFAULT_TIMINGS, ...timings };
  const queue = new GameQueue(port1, shared, all);
  const ran: unknown[] = [];
  const def = { name: 'probe', frame: ({ args }: { args: unknown }) => (ran.push(args), frame(args)) } as unknown as CommandDef;
  let ticks = 0;
  const game = { currentTick: () => ticks } as unknown as GameModule;
  const drainer = createDrainer({ port: port2, shared, game, commands: new Map([['probe', def]]), timings: all });
  t.teardown(() => {
    port1.close();
    port2.close();
  });
  return { queue, drainer, ran, shared, setTicks: (n: number) => (ticks = n) };
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
  t.match((await queue.submit('probe', 'run', 'y', caller)).outcome, { ok: false, code: 'BUSY' });
});
