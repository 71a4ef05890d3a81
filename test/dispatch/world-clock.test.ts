// decisions §12: the world clock a frame handler sees. endTick closes a tick and runs the tick hooks
// with the tick it reached; afterFrame runs them only when a frame moved the tick; worldSwapped runs
// the swap hooks; a hook removes itself with what onTick/onWorldSwap returned; a hook that throws is
// removed and reported, and never stops the others; close runs the close hooks and waits for them.
import t from 'tap';
import { createWorldClock } from '../../src/dispatch/world-clock.ts';

function clockOf(mode: 'realtime' | 'lockstep' = 'lockstep') {
  const world = { tick: 0, closed: 0 };
  const warnings: string[] = [];
  const clock = createWorldClock({
    mode,
    currentTick: () => world.tick,
    closeTick: () => {
      world.closed++;
      return world.tick;
    },
    warn: (message) => warnings.push(message),
  });
  return { clock, world, warnings };
}

t.test('endTick closes the tick, then the tick hooks run with the tick reached, in the order they joined', async (t) => {
  const { clock, world } = clockOf();
  t.equal(clock.mode, 'lockstep');
  const seen: string[] = [];
  clock.onTick((tick) => seen.push(`a${tick}`));
  const removeB = clock.onTick((tick) => seen.push(`b${tick}`));
  world.tick = 1;
  clock.endTick();
  t.equal(world.closed, 1, 'the tick was closed (jobs, published tick, events)');
  world.tick = 2;
  removeB();
  clock.endTick();
  t.same(seen, ['a1', 'b1', 'a2'], 'b left after tick 1');
});

t.test('afterFrame runs the tick hooks only when the frame moved the tick', async (t) => {
  const { clock, world } = clockOf('realtime');
  const seen: number[] = [];
  clock.onTick((tick) => seen.push(tick));
  clock.afterFrame();
  t.same(seen, [], 'a paused frame: no hook');
  world.tick = 3; // a frame at speed x3
  clock.afterFrame();
  clock.afterFrame();
  t.same(seen, [3], 'once for the frame that moved the tick');
  world.tick = 4;
  clock.endTick();
  clock.afterFrame();
  t.same(seen, [3, 4], 'a tick a step closed is not run again by the frame after it');
  t.equal(world.closed, 1, 'afterFrame closes nothing itself');
});

t.test('worldSwapped runs the swap hooks; a swap does not count as a tick', async (t) => {
  const { clock, world } = clockOf('realtime');
  const swaps: number[] = [];
  const ticks: number[] = [];
  clock.onTick((tick) => ticks.push(tick));
  const remove = clock.onWorldSwap(() => swaps.push(world.tick));
  world.tick = 0;
  clock.worldSwapped();
  world.tick = 7; // the new world starts at its own tick
  clock.worldSwapped();
  clock.afterFrame();
  t.same(swaps, [0, 7]);
  t.same(ticks, [], 'the new world’s tick is no tick run');
  remove();
  clock.worldSwapped();
  t.same(swaps, [0, 7], 'removed');
});

t.test('a hook that throws is removed and reported once; the others run, and the step goes on', async (t) => {
  const { clock, world, warnings } = clockOf();
  const seen: number[] = [];
  clock.onTick(() => {
    throw new Error('recorder disk full');
  });
  clock.onTick((tick) => seen.push(tick));
  clock.onWorldSwap(() => {
    throw new Error('swap hook broke');
  });
  world.tick = 1;
  t.doesNotThrow(() => clock.endTick());
  world.tick = 2;
  clock.endTick();
  t.doesNotThrow(() => clock.worldSwapped());
  clock.worldSwapped();
  t.same(seen, [1, 2]);
  t.equal(warnings.length, 2, 'each broken hook reported once');
  t.match(warnings[0], /recorder disk full/);
  t.match(warnings[1], /swap hook broke/);
});

t.test('a hook may remove itself while the hooks run', async (t) => {
  const { clock, world } = clockOf();
  const seen: string[] = [];
  const remove = clock.onTick(() => {
    seen.push('once');
    remove();
  });
  clock.onTick(() => seen.push('always'));
  world.tick = 1;
  clock.endTick();
  world.tick = 2;
  clock.endTick();
  t.same(seen, ['once', 'always', 'always']);
});

t.test('close runs the close hooks and waits for what they return; a removed hook does not run, a throwing one is reported', async (t) => {
  const { clock, warnings } = clockOf();
  const seen: string[] = [];
  let finish!: () => void;
  clock.onClose(() => {
    seen.push('writer');
    return new Promise<void>((resolve) => (finish = resolve));
  });
  const remove = clock.onClose(() => seen.push('removed'));
  clock.onClose(() => {
    throw new Error('broken');
  });
  clock.onClose(() => seen.push('last'));
  remove();
  let closed = false;
  const closing = clock.close().then(() => (closed = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.same(seen, ['writer', 'last']);
  t.equal(closed, false, 'it waits for the writer');
  finish();
  await closing;
  t.equal(closed, true);
  t.match(warnings, [/a clock hook threw and was removed: broken/]);
});
