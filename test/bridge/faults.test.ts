import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';

t.test('GAME_CRASH carries the exception and the bridge keeps serving', async (t) => {
  const b = await startTestBridge(t, { gameOptions: { crashOnWorldState: true } });
  const crash = await b.cmd('get_world_state');
  t.equal(crash.status, 500);
  t.match(crash.body.error, {
    code: 'GAME_CRASH',
    command: 'get_world_state',
    args: {},
    exception: { type: 'TypeError', message: /Cannot read properties of null/, stack_top: /at .*getWorldState .*tiny-game/ },
  });
  t.equal((await b.cmd('get_ui_state')).status, 200, 'the next command is served');
  t.equal((await b.fetch('/health')).status, 200);
  t.equal(b.bridge.stats().slotsInUse, 0);
});

t.test('a stalled game thread: what waited too long gets MAIN_THREAD_TIMEOUT, nothing else, and none of it runs later', async (t) => {
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  // 2.5 s: the three requests must be queued 0.5 s before it ends to be dropped, and a loaded
  // machine may take a while to get them there (with 1.5 s the margin was under a second).
  const b = await startTestBridge(t, { gameOptions: { counters, stallOnPauseMs: 2500 }, timings: { queueDeadlineMs: 500 } });
  const stall = b.cmd('pause'); // one frame that takes 2.5 s
  await until(() => Atomics.load(view, COUNTER.pause) === 1, 5000, 'the stall to begin');
  const started = Date.now();
  const waiting = await Promise.all([b.cmd('get_world_state'), b.cmd('get_world_state'), b.cmd('get_ui_state')]);
  const elapsed = Date.now() - started;
  for (const answer of waiting) {
    t.equal(answer.status, 504);
    t.match(answer.body.error, { code: 'MAIN_THREAD_TIMEOUT', message: /dropped before it ran/ });
  }
  // Answered by the main loop's deadline, not when the stall ends (2.5 s after it began).
  t.ok(elapsed >= 450 && elapsed < 2000, `answered at the deadline while the game thread was still stalled (${elapsed} ms)`);
  t.same((await stall).body.result, { previous_paused: false, paused: true }, 'the started action was not cut off');
  await new Promise((resolve) => setTimeout(resolve, 200)); // a few frames after the stall
  t.equal(Atomics.load(view, COUNTER.worldState), 0, 'no dropped action ran afterwards');
  t.equal((await b.cmd('get_world_state')).status, 200, 'the bridge recovers when frames resume');
  t.equal(Atomics.load(view, COUNTER.worldState), 1);
  t.equal(b.bridge.stats().slotsInUse, 0);
});

t.test('a client that disconnects while waiting for a slot never takes one later', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: 1 });
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { counters, stallOnPauseMs: 800 }, timings: { admissionWaitMs: 3000 } });
  const holder = b.cmd('pause');
  await until(() => b.bridge.stats().slotsInUse === 1, 5000, 'the slot to be held');
  const controller = new AbortController();
  const gone = b.cmd('get_world_state', undefined, { signal: controller.signal }).catch((err: Error) => err);
  await until(() => b.bridge.stats().waiting === 1, 5000, 'the client to wait');
  controller.abort();
  t.type(await gone, Error);
  await until(() => b.bridge.stats().waiting === 0, 5000, 'the waiter to leave');
  await holder;
  await until(() => b.bridge.stats().slotsInUse === 0, 5000, 'the slot to come back');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(Atomics.load(view, COUNTER.worldState), 0, 'the gone request never ran');
  t.equal(b.bridge.stats().slotsInUse, 0);
});

t.test('a client that disconnects while its command runs: the command completes and the slot comes back', async (t) => {
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, { gameOptions: { counters, stallOnPauseMs: 400 } });
  const controller = new AbortController();
  const gone = b.cmd('pause', undefined, { signal: controller.signal }).catch((err: Error) => err);
  await until(() => Atomics.load(view, COUNTER.pause) === 1, 5000, 'the command to start');
  controller.abort();
  t.type(await gone, Error);
  await until(() => b.bridge.stats().slotsInUse === 0, 5000, 'the slot to come back');
  t.equal((await b.cmd('get_ui_state')).body.result.config_paused, true, 'the pause took effect');
});

t.test('the startup window: suppress_startup_window = false shows it and freezes the world until dismissed', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { suppressStartupWindow: false });
  const b = await startTestBridge(t, { configDir: dir });
  const ui = (await b.cmd('get_ui_state')).body.result;
  t.same(ui, { window_active: true, current_window: 'welcome', config_paused: false, effective_paused: true, world_loading: false });
  const frozen = (await b.cmd('get_world_state')).body.result;
  t.equal(frozen.paused, true, 'paused reports true though nobody paused');
  t.same((await b.cmd('dismiss_window')).body.result, { dismissed: true, window: 'welcome' });
  t.equal((await b.cmd('get_world_state')).body.result.paused, false);
});

t.test('close(): waiters get BUSY, started actions finish, and nothing is left running', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: 1 });
  const counters = new SharedArrayBuffer(32);
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { counters, stallOnPauseMs: 500 } });
  const running = b.cmd('pause');
  await until(() => Atomics.load(new Int32Array(counters), COUNTER.pause) === 1, 5000, 'the command to start');
  const waiter = b.cmd('get_ui_state');
  await until(() => b.bridge.stats().waiting === 1, 5000, 'a waiter');
  const closing = b.bridge.close();
  const [ran, waited] = await Promise.all([running, waiter]);
  t.equal(ran.status, 200, 'the started action finished');
  t.equal(waited.status, 503);
  t.equal(waited.body.error.code, 'BUSY');
  await closing;
  await t.rejects(fetch(`${b.bridge.url}/health`), 'no longer listening');
});
