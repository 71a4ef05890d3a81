// decisions §12 on the game-thread half of the dispatcher: every entry started gets its place (tick,
// order within the tick, from 0 again when the tick changes); a lockstep drain runs at most 32 entries
// like a frame but steps no per-frame job; a tick closed through the clock steps them once; a world
// swap runs the swap hooks.
import { MessageChannel } from 'node:worker_threads';
import t, { type Test } from 'tap';
import type { CommandDef, FrameEnv } from '../../src/commands/define.ts';
import { createDrainer } from '../../src/dispatch/drain.ts';
import { drainerPort } from './drainer-port.ts';
import { badArgs, gameRejected } from '../../src/errors/bridge-error.ts';
import { DEFAULT_TIMINGS } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { GameModule } from '../../src/shared/game-module.ts';
import { createSharedState, kQueued, kTick } from '../../src/shared/layout.ts';

const caller = { agentId: 'legacy' } as CallerContext;
const turn = () => new Promise((resolve) => setImmediate(resolve));

function setup(t: Test, clockMode: 'realtime' | 'lockstep') {
  const { port1, port2 } = new MessageChannel();
  const shared = createSharedState();
  const world = { tick: 0 };
  const game = { currentTick: () => world.tick } as unknown as GameModule;
  const commands = new Map<string, CommandDef>([
    ['probe', { name: 'probe', category: 'action', frame: () => 'ran' } as unknown as CommandDef],
    ['look', { name: 'look', category: 'read', frame: () => 'read' } as unknown as CommandDef],
    [
      'refuse',
      {
        name: 'refuse',
        category: 'action',
        frame: () => {
          throw badArgs('no such tile');
        },
      } as unknown as CommandDef,
    ],
    [
      'reject',
      {
        name: 'reject',
        category: 'action',
        frame: () => {
          throw gameRejected('the game said no');
        },
      } as unknown as CommandDef,
    ],
    // A step of one tick, as the step command closes each tick it runs.
    [
      'tick_once',
      {
        name: 'tick_once',
        category: 'control',
        frame: (env: FrameEnv<unknown>) => {
          world.tick++;
          env.clock.endTick();
          return world.tick;
        },
      } as unknown as CommandDef,
    ],
    ['swap', { name: 'swap', category: 'control', frame: (env: FrameEnv<unknown>) => env.clock.worldSwapped() } as unknown as CommandDef],
    // A per-frame job that counts its steps.
    [
      'job',
      {
        name: 'job',
        category: 'action',
        frame: (env: FrameEnv<unknown>) => env.jobs.register({ step: () => (jobSteps.count++, false) }),
      } as unknown as CommandDef,
    ],
  ]);
  const jobSteps = { count: 0 };
  const drainer = createDrainer({ port: port2, shared, game, commands, timings: DEFAULT_TIMINGS, clockMode });
  t.teardown(() => {
    drainer.jobs.cancelAll();
    port1.close();
    port2.close();
  });
  const { queue, replies } = drainerPort(port1, shared, caller, 100);
  const send = (command = 'probe'): void => queue(command);
  return { drainer, shared, world, send, replies, jobSteps };
}

t.test('places: the tick at the start, and the order among the action and control entries started at that tick', async (t) => {
  const { drainer, world, send, replies } = setup(t, 'lockstep');
  world.tick = 40;
  send();
  send('look'); // a read takes no place: it never shifts the order of what changes the world
  send();
  send('tick_once'); // starts at (40, 2) and moves the world to 41
  send();
  send();
  await turn();
  drainer.drainQueued();
  const places = replies().map((reply) => reply.place ?? null);
  t.same(places, [{ tick: 40, order: 0 }, null, { tick: 40, order: 1 }, { tick: 40, order: 2 }, { tick: 41, order: 0 }, { tick: 41, order: 1 }]);
  send();
  await turn();
  drainer.drainQueued();
  t.same(replies()[0]!.place, { tick: 41, order: 2 }, 'the order goes on across drains while the tick stays');
  world.tick = 5; // a rewind: another tick, the order starts again
  send();
  await turn();
  drainer.drainQueued();
  t.same(replies()[0]!.place, { tick: 5, order: 0 });
});

t.test('a refusal in the frame gives its place back; a command the game rejected keeps it', async (t) => {
  const { drainer, send, replies } = setup(t, 'lockstep');
  send();
  send('refuse');
  send('reject');
  send();
  await turn();
  drainer.drainQueued();
  t.same(
    replies().map((reply) => [reply.outcome.ok ? 'ok' : reply.outcome.code, reply.place ?? null]),
    [
      ['ok', { tick: 0, order: 0 }],
      ['BAD_ARGS', null],
      ['GAME_REJECTED', { tick: 0, order: 1 }],
      ['ok', { tick: 0, order: 2 }],
    ],
  );
});

t.test('lockstep: a drain steps no per-frame job; each tick a step closes steps them once', async (t) => {
  const { drainer, shared, world, send, replies, jobSteps } = setup(t, 'lockstep');
  send('job');
  await turn();
  drainer.drainQueued();
  drainer.drainQueued();
  t.equal(jobSteps.count, 0, 'no wall-clock pulses');
  send('tick_once');
  send('tick_once');
  await turn();
  drainer.drainQueued();
  t.equal(jobSteps.count, 2, 'one step per tick');
  t.equal(Atomics.load(shared.control, kTick), 2, 'each tick is published as it closes');
  t.equal(world.tick, 2);
  t.equal(replies().length, 3);
});

t.test('realtime: every frame steps the jobs, as before', async (t) => {
  const { drainer, send, jobSteps } = setup(t, 'realtime');
  send('job');
  await turn();
  drainer.drainFrame();
  drainer.drainFrame();
  t.equal(jobSteps.count, 2);
  t.equal(drainer.clock.mode, 'realtime');
});

t.test('lockstep: at most 32 entries a drain, the rest at the next', async (t) => {
  const { drainer, shared, send, replies } = setup(t, 'lockstep');
  for (let n = 0; n < 40; n++) send();
  await turn();
  drainer.drainQueued();
  t.equal(replies().length, 32);
  t.equal(Atomics.load(shared.control, kQueued), 8, 'the rest stay queued');
  drainer.drainQueued();
  t.equal(replies().length, 8);
  t.equal(drainer.carrying, false);
});

t.test('a world swap runs the clock’s swap hooks', async (t) => {
  const { drainer, send } = setup(t, 'lockstep');
  let swaps = 0;
  drainer.clock.onWorldSwap(() => swaps++);
  send('swap');
  await turn();
  drainer.drainQueued();
  t.equal(swaps, 1);
});
