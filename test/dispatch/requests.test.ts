// What the dispatcher does for one request beyond running it, in one thread (GameQueue and drainer
// joined by a MessageChannel, frames driven by hand): decisions §14's progress (reported by the
// frame step, spaced on the game thread, handed to the request's sink until its answer) and its
// client gone before the start (the entry expires, never runs, and is answered BUSY), and decisions
// §15's look at who waits (othersWaiting: another agent's queued entry, not the caller's own, not
// an expired one, not the bridge's own calls; what it takes off the port still runs in order).
import { MessageChannel } from 'node:worker_threads';
import t, { type Test } from 'tap';
import type { CommandDef, FrameEnv } from '../../src/commands/define.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { createDrainer } from '../../src/dispatch/drain.ts';
import { DEPARTED_MESSAGE, GameQueue } from '../../src/dispatch/game-queue.ts';
import { DEFAULT_TIMINGS, LIMITS, type Timings } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { GameModule } from '../../src/shared/game-module.ts';
import { createSharedState, ENTRY_EXPIRED, ENTRY_QUEUED, kQueued } from '../../src/shared/layout.ts';
import type { ProgressReport } from '../../src/shared/progress.ts';
import type { DispatcherPortMessage } from '../../src/shared/protocol.ts';

const as = (agentId: string) => ({ agentId }) as CallerContext;
const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Step = (env: FrameEnv<unknown>) => unknown;

function setup(t: Test, steps: Record<string, Step>, timings: Partial<Timings> = {}) {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const all = { ...DEFAULT_TIMINGS, ...timings };
  const queue = new GameQueue(port1, shared, all);
  const clock = { now: 1000 };
  const game = { currentTick: () => 7 } as unknown as GameModule;
  const ran: string[] = [];
  const commands = new Map<string, CommandDef>([['batch', COMMANDS.find((command) => command.name === 'batch')!]]);
  for (const [name, step] of Object.entries(steps)) {
    commands.set(name, { name, category: 'action', frame: (env: FrameEnv<unknown>) => (ran.push(name), step(env)) } as unknown as CommandDef);
  }
  // What the game thread posts, progress counted as it leaves.
  const posted: DispatcherPortMessage[] = [];
  const post = port2.postMessage.bind(port2);
  port2.postMessage = (message: DispatcherPortMessage) => (posted.push(message), post(message));
  const drainer = createDrainer({
    port: port2,
    shared,
    game,
    commands,
    timings: all,
    now: () => clock.now,
    bridgeCommands: new Set(['internal']),
  });
  t.teardown(() => {
    queue.close();
    port1.close();
    port2.close();
  });
  const progressPosted = () => posted.filter((m) => 'kind' in m && m.kind === 'progress').length;
  return { queue, drainer, shared, clock, ran, progressPosted, gamePort: port2 };
}

t.test('progress: the first report at once, then one per 100 ms of the game thread; the sink hears them until the answer', async (t) => {
  const s = setup(t, {
    stepping: (env) => {
      for (let i = 1; i <= 6; i++) {
        s.clock.now += 40;
        env.progress(i, 6);
      }
      return 'done';
    },
    phased: (env) => {
      env.progress(1, 2, 'first');
      return 'phased';
    },
  });
  const heard: ProgressReport[] = [];
  const answer = s.queue.submit('stepping', 'run', {}, as('a'), 1, (report) => heard.push(report));
  await turn();
  s.drainer.drainFrame();
  t.same((await answer).outcome, { ok: true, value: 'done' });
  // 1040: sent; 1080, 1120: within 100 ms; 1160: sent; 1200: within; 1240: sent.
  t.same(
    heard.map((r) => [r.done, r.total, r.at, r.tick]),
    [
      [1, 6, 1040, 7],
      [4, 6, 1160, 7],
    ],
  );
  t.notOk('phase' in heard[0]!, 'no phase unless one is named');
  const phases: ProgressReport[] = [];
  const phased = s.queue.submit('phased', 'run', {}, as('a'), 1, (report) => phases.push(report));
  await turn();
  s.drainer.drainFrame();
  await phased;
  t.same(
    phases.map((r) => [r.done, r.total, r.phase]),
    [[1, 2, 'first']],
  );
});

t.test('progress: a request without a sink makes the game thread post nothing; a batch reports items, its items nothing', async (t) => {
  const s = setup(t, {
    chatty: (env) => {
      env.progress(1, 1);
      return 1;
    },
  });
  await Promise.all([s.queue.submit('chatty', 'run', {}, as('a')), turn().then(() => s.drainer.drainFrame())]);
  t.equal(s.progressPosted(), 0, 'nothing posted for a request that asked for none');
  const heard: ProgressReport[] = [];
  const batch = s.queue.submit('batch', 'run', { commands: [{ name: 'chatty' }, { name: 'chatty' }, { name: 'chatty' }] }, as('a'), 3, (r) => heard.push(r));
  await turn();
  s.drainer.drainFrame();
  t.equal(((await batch).outcome as { value: { completed: number } }).value.completed, 3);
  t.same(
    heard.map((r) => [r.done, r.total]),
    [[1, 3]],
    "the batch's own report (the rest came within 100 ms); its items' progress is none",
  );
});

t.test('progress: a report that comes after the answer (the backstop answered first) is dropped', async (t) => {
  let later!: FrameEnv<unknown>;
  let finish!: (value: string) => void;
  const s = setup(
    t,
    {
      slow: (env) => {
        later = env;
        env.progress(1, 3);
        return new Promise((resolve) => (finish = resolve));
      },
    },
    { queueDeadlineMs: 20, handlerBackstopMs: 40 },
  );
  const heard: number[] = [];
  const answer = s.queue.submit('slow', 'run', {}, as('a'), 1, (report) => heard.push(report.done));
  await turn();
  s.drainer.drainFrame();
  await sleep(5);
  t.same(heard, [1], 'heard while unanswered');
  const first = await answer;
  t.equal(first.outcome.ok ? null : first.outcome.code, 'MAIN_THREAD_TIMEOUT', 'the backstop answered');
  s.clock.now += 200;
  later.progress(2, 3);
  t.equal(s.progressPosted(), 2, 'the game thread posted it');
  finish('ended');
  // The run's end follows the report on the same port: once it has settled, the report was handled.
  await first.settled;
  t.same(heard, [1], 'the main loop dropped it: none after the answer');
});

t.test('progress: a report for no entry, for an earlier entry of the cell, or for an entry without a sink reaches no one', async (t) => {
  const release: Array<() => void> = [];
  const s = setup(t, { hold: () => new Promise<void>((resolve) => release.push(resolve)) });
  const heard: number[] = [];
  const report = { done: 1, total: 1, tick: 0, at: 0 };
  const answers = [s.queue.submit('hold', 'run', {}, as('a'), 1, (r) => heard.push(r.done)), s.queue.submit('hold', 'run', {}, as('a'))];
  await turn();
  s.drainer.drainFrame();
  // Cells are handed out from 0 and ids from 1: the entries are (cell 0, id 1) and (cell 1, id 2).
  s.gamePort.postMessage({ kind: 'progress', cell: 7, id: 3, report });
  s.gamePort.postMessage({ kind: 'progress', cell: 0, id: 99, report });
  s.gamePort.postMessage({ kind: 'progress', cell: 1, id: 2, report });
  s.gamePort.postMessage({ kind: 'progress', cell: 0, id: 1, report: { ...report, done: 5 } });
  await sleep(20);
  t.same(heard, [5], "only the entry's own report reached its sink");
  for (const done of release) done();
  await Promise.all(answers);
});

t.test('a client gone before its entry started: expired, never run, answered BUSY; its cell comes back once the game thread skips it', async (t) => {
  const s = setup(t, { spawn: () => 'spawned' });
  const client = { destroyed: false };
  const answer = s.queue.submit('spawn', 'run', {}, as('a'), 1, undefined, client);
  await sleep(LIMITS.departedSweepMs * 3);
  t.equal(Atomics.load(s.shared.entries, 0), ENTRY_QUEUED, 'a client still there: the entry stays queued past several looks');
  client.destroyed = true;
  const answered = await answer;
  t.same(answered.outcome, { ok: false, code: 'BUSY', message: DEPARTED_MESSAGE });
  t.match(
    DEPARTED_MESSAGE,
    /^the client closed its connection before the command started, so it was taken off the queue and never ran; nothing reached the world/,
  );
  t.equal(Atomics.load(s.shared.entries, 0), ENTRY_EXPIRED, 'expired, as a late entry is');
  t.equal(s.queue.pending, 1, 'its cell is held until the game thread has let go of it');
  s.drainer.drainFrame();
  t.same(s.ran, [], 'the game thread skipped it: it never ran');
  await turn();
  t.equal(s.queue.pending, 0, 'then the cell is free');
});

t.test('a client gone after its entry started changes nothing: a started command finishes and answers', async (t) => {
  const client = { destroyed: false };
  const releases: Array<(value: string) => void> = [];
  const s = setup(t, {
    long: () => {
      client.destroyed = true; // the client leaves while the step runs
      return new Promise((resolve) => releases.push(resolve));
    },
  });
  const answer = s.queue.submit('long', 'run', {}, as('a'), 1, undefined, client);
  const plain = s.queue.submit('long', 'run', {}, as('b'));
  await turn();
  s.drainer.drainFrame();
  await sleep(LIMITS.departedSweepMs * 3);
  releases[0]!('finished');
  t.same((await answer).outcome, { ok: true, value: 'finished' }, 'it ran to its end and answered');
  t.same(s.ran, ['long', 'long'], 'both ran; an entry without a client is never looked at');
  releases[1]!('finished too');
  await plain;
});

t.test('othersWaiting: true for a queued entry of another agent only; what it takes off the port runs next, in order', async (t) => {
  const seen: boolean[] = [];
  const queued: Array<[number, number]> = [];
  const s = setup(t, {
    look: (env) => {
      const before = Atomics.load(s.shared.control, kQueued);
      seen.push(env.othersWaiting());
      queued.push([before, Atomics.load(s.shared.control, kQueued)]);
    },
    other: () => 'other',
    internal: () => 'internal',
  });
  const run = (agent: string, name: string) => s.queue.submit(name, 'run', {}, as(agent));

  // Alone, and with only the caller's own entries behind it.
  const alone = [run('a', 'look'), run('a', 'other')];
  await turn();
  s.drainer.drainFrame();
  await Promise.all(alone);
  // Another agent's entry behind it.
  const mixed = [run('a', 'look'), run('a', 'other'), run('b', 'other'), run('a', 'other')];
  await turn();
  s.drainer.drainFrame();
  await Promise.all(mixed);
  t.same(seen, [false, true]);
  t.same(s.ran, ['look', 'other', 'look', 'other', 'other', 'other'], 'the entries it looked at ran next, in their order');
  t.same(
    queued,
    [
      [1, 1],
      [3, 3],
    ],
    'what it took off the port still counts as queued (gcb_queue_depth) until it is drained',
  );
  t.equal(Atomics.load(s.shared.control, kQueued), 0);

  // The bridge's own call, and another agent's entry already expired, do not count.
  const internal = [run('a', 'look'), run('b', 'internal')];
  await turn();
  s.drainer.drainFrame();
  await Promise.all(internal);
  // Another agent's entry behind it, expired already (its client left: the sweep's compare-and-swap).
  const looking = run('a', 'look');
  const expired = s.queue.submit('other', 'run', {}, as('b'), 1, undefined, { destroyed: true });
  t.equal((await expired).outcome.ok, false, 'expired by the main loop before the drain');
  s.drainer.drainFrame();
  await looking;
  t.same(seen.slice(2), [false, false], 'neither the bridge its own call nor an expired entry makes the caller give way');
});

t.test('othersWaiting: one look per entry for the same agent, again for another; each look sees what came since', async (t) => {
  const seen: Array<[string, boolean]> = [];
  let calls = 0;
  const s = setup(t, {
    look: (env) => {
      calls++;
      seen.push([env.caller.agentId, env.othersWaiting()]);
      // A second look in the same step: nothing new, the same answer.
      seen.push([env.caller.agentId, env.othersWaiting()]);
    },
    other: () => 'other',
  });
  const run = (agent: string, name: string) => s.queue.submit(name, 'run', {}, as(agent));
  const first = [run('a', 'look'), run('b', 'look'), run('a', 'other')];
  await turn();
  s.drainer.drainFrame();
  await Promise.all(first);
  t.equal(calls, 2);
  t.same(
    seen,
    [
      ['a', true],
      ['a', true],
      ['b', true],
      ['b', true],
    ],
    "a's look sees b's entry; b's look sees a's (looked at again for another agent)",
  );
});
