// Faults beyond test/bridge/pool-faults.test.ts (which covers a command that throws, a worker that
// exits or runs out of memory, a handler that never returns): a worker that dies in the middle of
// the built-in commands that run game code on the pool (load_world, screenshot), and pool commands
// that need no frame while others wait for one behind a stalled game thread.
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { EXIT_DIMENSION, EXIT_SAVE } from '../fixtures/hardening-fragile-game.ts';
import { startTestBridge, until } from '../helpers/bridge.ts';
import { FRAGILE_GAME } from './helpers.ts';
import { fixture } from '../helpers/paths.ts';

t.setTimeout(120_000);

const EXTRA = fixture('extra-commands.ts');
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

t.test('a pool worker that dies inside screenshot or load_world', async (t) => {
  const b = await startTestBridge(t, { game: FRAGILE_GAME, poolThreads: 2 });
  const threads = b.bridge.stats().poolThreads;
  await Promise.all(Array.from({ length: 4 }, () => b.cmd('whoami'))); // warm the workers

  await t.test('screenshot: GAME_CRASH, the worker replaced, the next screenshot served', async (t) => {
    const died = await b.cmd('screenshot', { max_dimension: EXIT_DIMENSION });
    t.equal(died.status, 500);
    t.equal(died.body.error.code, 'GAME_CRASH');
    await until(() => b.bridge.stats().poolThreads === threads, 20_000, 'the pool to replace its worker');
    t.equal((await b.cmd('screenshot', { max_dimension: 64 })).status, 200, 'the next screenshot is served');
    t.equal(b.bridge.stats().slotsInUse, 0);
  });

  await t.test('load_world: GAME_CRASH, and the world is not left "loading" for ever', async (t) => {
    t.equal((await b.cmd('save_world', { folder: 'before' })).status, 200);
    const died = await b.cmd('load_world', { bytes_b64: Buffer.from(EXIT_SAVE, 'latin1').toString('base64') });
    t.equal(died.status, 500);
    t.equal(died.body.error.code, 'GAME_CRASH');
    await until(() => b.bridge.stats().poolThreads === threads, 20_000, 'the pool to replace its worker');
    // The dead load never swapped a world in: nothing is loading any more.
    const ui = await b.cmd('get_ui_state');
    t.equal(ui.body.result?.world_loading, false, 'get_ui_state.world_loading is false again');
    const save = await b.cmd('save_world', { folder: 'after' });
    t.equal(save.status, 200, `the next save_world succeeds (got ${save.status} ${save.body.error?.message ?? ''})`);
    const load = await b.cmd('load_world', { path: 'before' });
    t.equal(load.status, 200, 'and so does the next load_world');
    t.equal(b.bridge.stats().slotsInUse, 0);
  });

  t.same(unhandled, [], 'no unhandled rejection reached the main loop');
});

t.test('pool commands that need no frame are served while others wait for a frame behind a stalled game thread', async (t) => {
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, { commandModules: [EXTRA], poolThreads: 2, gameOptions: { counters, stallOnPauseMs: 4000 } });
  await Promise.all(Array.from({ length: 4 }, () => b.cmd('whoami'))); // warm both workers
  const stall = b.cmd('pause').then((reply) => ({ what: 'the stall ended', reply }));
  await until(() => Atomics.load(view, COUNTER.pause) === 1, 5000, 'the stall to begin');
  // Two pool commands that each wait for one frame: as many as the pool has threads.
  const framed = [b.cmd('double_on_frame', { n: 1 }), b.cmd('double_on_frame', { n: 2 })];
  await until(() => b.bridge.stats().dispatcherPending === 3, 5000, 'both frame calls to be queued behind the stall');
  const whoami = b.cmd('whoami').then((reply) => ({ what: 'whoami answered', reply }));
  const first = await Promise.race([whoami, stall]);
  t.equal(first.what, 'whoami answered', 'whoami (no frame needed) is answered while the game thread is still stalled');
  t.equal((await whoami).reply.status, 200);
  t.equal((await stall).reply.status, 200);
  for (const reply of await Promise.all(framed)) t.equal(reply.status, 200, 'the framed commands complete once frames resume');
  t.equal(b.bridge.stats().slotsInUse, 0);
  t.same(unhandled, []);
});
