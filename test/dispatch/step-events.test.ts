// decisions §7 on a step's events: they leave with its answer, or in one batch per 100 ms of
// stepping (or per frame's bound of events held), whichever comes first, each with its own tick.
// The drainer's clock is driven by hand here.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import t from 'tap';
import type { CommandDef, FrameEnv } from '../../src/commands/define.ts';
import { createDrainer } from '../../src/dispatch/drain.ts';
import { createStepEvents } from '../../src/dispatch/step-events.ts';
import { createCollector } from '../../src/events/collector.ts';
import { DEFAULT_TIMINGS, LIMITS } from '../../src/limits.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import type { Collector } from '../../src/shared/frame.ts';
import type { GameModule } from '../../src/shared/game-module.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import type { DispatcherPortMessage, EventBatch } from '../../src/shared/protocol.ts';
import { drainerPort } from './drainer-port.ts';

/** A collector's calls, as step-events makes them. */
function fakeCollector(held: () => number) {
  const calls: string[] = [];
  const collector = {
    emit: () => {},
    take: () => null,
    send: () => {},
    flush: () => void calls.push('flush'),
    endTick: () => void calls.push('endTick'),
    held,
  } satisfies Collector;
  return { collector, calls };
}

t.test('the events of a tick stay until 100 ms of stepping have passed since the command started or the last batch left', async (t) => {
  let ms = 1000;
  const { collector, calls } = fakeCollector(() => 1);
  const stepEvents = createStepEvents(collector, () => ms);
  stepEvents.commandStarted();
  ms += LIMITS.stepEventsBatchMs - 1;
  stepEvents.tickClosed();
  t.same(calls, ['endTick'], '99 ms: the events stay, the tick bound starts again');
  ms += 1;
  stepEvents.tickClosed();
  t.same(calls, ['endTick', 'flush'], '100 ms: the batch leaves');
  ms += LIMITS.stepEventsBatchMs - 1;
  stepEvents.tickClosed();
  t.same(calls.at(-1), 'endTick', 'counted again from the batch that left');
  ms += 1;
  stepEvents.tickClosed();
  t.same(calls.at(-1), 'flush');
  ms += 5000;
  stepEvents.commandStarted();
  stepEvents.tickClosed();
  t.same(calls.at(-1), 'endTick', 'a new command counts from its start, not from the last batch');
});

t.test("a frame's bound of events held: the batch leaves at once", async (t) => {
  let held = LIMITS.eventsPerFrame - 1;
  const { collector, calls } = fakeCollector(() => held);
  const stepEvents = createStepEvents(collector, () => 0);
  stepEvents.commandStarted();
  stepEvents.tickClosed();
  held++;
  stepEvents.tickClosed();
  t.same(calls, ['endTick', 'flush']);
  t.doesNotThrow(() => createStepEvents(undefined, () => 0).tickClosed(), 'no collector: nothing to send');
});

t.test('a long step through the drainer: one batch per 100 ms of stepping, the rest with the answer, every event with its tick, in order', async (t) => {
  const { port1, port2 } = new MessageChannel();
  t.teardown(() => {
    port1.close();
    port2.close();
  });
  const shared = createSharedState();
  let ms = 0;
  const world = { tick: 0 };
  const game = { currentTick: () => world.tick } as unknown as GameModule;
  const events = createCollector({ kinds: new Set(['ping']), currentTick: () => world.tick, send: (batch) => port2.postMessage(batch), warn: () => {} });
  // Ten ticks of 30 ms, two events each.
  const longStep = {
    name: 'long_step',
    category: 'control',
    frame: (env: FrameEnv<unknown>) => {
      for (let i = 0; i < 10; i++) {
        world.tick++;
        env.emit('ping', { n: 2 * world.tick });
        env.emit('ping', { n: 2 * world.tick + 1 });
        ms += 30;
        env.clock.endTick();
      }
      return world.tick;
    },
  } as unknown as CommandDef;
  const drainer = createDrainer({
    port: port2,
    shared,
    game,
    commands: new Map([['long_step', longStep]]),
    timings: DEFAULT_TIMINGS,
    clockMode: 'lockstep',
    events,
    now: () => ms,
  });
  const { queue } = drainerPort(port1, shared, { agentId: 'a' } as CallerContext);
  queue('long_step');
  drainer.drainQueued();
  const messages: DispatcherPortMessage[] = [];
  for (let r = receiveMessageOnPort(port1); r; r = receiveMessageOnPort(port1)) messages.push(r.message as DispatcherPortMessage);
  const batches = messages.map((m) => ('type' in m ? m : (m as { events?: EventBatch }).events)).filter((b) => b !== undefined);
  t.same(
    messages.map((m) => ('type' in m ? 'events' : m.kind)),
    ['events', 'events', 'done'],
    'ticks 1-4 (120 ms), ticks 5-8 (the next 120 ms), then the answer',
  );
  t.same(
    batches.map((b) => b.events.map((e) => e.tick)),
    [
      [1, 1, 2, 2, 3, 3, 4, 4],
      [5, 5, 6, 6, 7, 7, 8, 8],
      [9, 9, 10, 10],
    ],
    'each event with the tick it was emitted at; the last ticks ride with the answer',
  );
  t.same(
    batches.flatMap((b) => b.events.map((e) => e.fields!.n)),
    Array.from({ length: 20 }, (_, i) => i + 2),
    'in order, none lost',
  );
  t.equal(
    batches.reduce((sum, b) => sum + b.dropped, 0),
    0,
  );
});
