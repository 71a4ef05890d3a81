// A pool command that throws, a worker that exits or runs out of memory, a handler that never
// returns: the request gets GAME_CRASH or MAIN_THREAD_TIMEOUT, the pool replaces the worker, the
// next requests succeed, and nothing unhandled reaches the main loop.
import t from 'tap';
import { startTestBridge, until } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';

// The backstop case waits the real 60 s; with the other cases on a loaded machine the file passes
// tap's default 60 s (seen in CI at 70 s).
t.setTimeout(180_000);

const EXTRA = fixture('extra-commands.ts');
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

t.test('a pool command queues only its frame call, through commandModules', async (t) => {
  const b = await startTestBridge(t, { commandModules: [EXTRA], poolThreads: 2 });
  const res = await b.cmd('double_on_frame', { n: 21 });
  t.equal(res.status, 200);
  t.same(res.body.result, { doubled: 42, thread: 'pool' });
  const caps = (await (await b.fetch('/capabilities')).json()) as any;
  t.ok(caps.commands.some((c: { name: string; requires_main_thread: boolean }) => c.name === 'double_on_frame' && c.requires_main_thread === false));
  t.equal((await b.cmd('double_on_frame', { n: 'x' })).status, 400, 'its schema is enforced');
});

t.test('worker faults', async (t) => {
  const b = await startTestBridge(t, { commandModules: [EXTRA], poolMemoryMb: 64, poolThreads: 2 });
  const threads = b.bridge.stats().poolThreads;
  // warm every worker first: a worker's first task also pays for loading the command catalogue
  await Promise.all(Array.from({ length: 8 }, () => b.cmd('whoami')));

  const crash = await b.cmd('crash_pool');
  t.equal(crash.status, 500);
  t.match(crash.body.error, { code: 'GAME_CRASH', exception: { type: 'TypeError', message: /Cannot read properties of undefined/ } });

  for (const name of ['exit_pool', 'oom_pool']) {
    const started = Date.now();
    const res = await b.cmd(name);
    t.equal(res.status, 500, `${name} answers`);
    t.match(res.body.error, { code: 'GAME_CRASH', command: name });
    // Behaviour, not speed: an out-of-memory worker took 6.3 s to die and be replaced at load 15.
    await until(() => b.bridge.stats().poolThreads === threads, 20_000, 'the pool to replace its worker');
    t.pass(`${name}: replaced in ${Date.now() - started} ms`);
    t.equal((await b.cmd('whoami')).status, 200, `${name}: the next request succeeds`);
  }

  t.equal((await b.cmd('get_world_state')).status, 200, 'the game thread never noticed');
  t.same(unhandled, [], 'no unhandled rejection reached the main loop');
});

t.test('a pool handler that never returns: 504 at the backstop, its worker replaced, its slot back', async (t) => {
  const b = await startTestBridge(t, { commandModules: [EXTRA], timings: { handlerBackstopMs: 6000 }, poolThreads: 2 });
  const threads = b.bridge.stats().poolThreads;
  await Promise.all(Array.from({ length: 8 }, () => b.cmd('whoami')));
  const hung = await b.cmd('hang_pool');
  t.equal(hung.status, 504);
  t.match(hung.body.error, { code: 'MAIN_THREAD_TIMEOUT', message: /6 s handler backstop/ });
  await until(() => b.bridge.stats().slotsInUse === 0, 5000, 'the slot to come back');
  await until(() => b.bridge.stats().poolThreads === threads, 20_000, 'the aborted worker to be replaced');
  const next = await b.cmd('whoami');
  t.equal(next.status, 200);
  t.same(unhandled, []);
});

t.test('a game thread that dies: GAME_CRASH for what was pending, then a fresh world serves', async (t) => {
  const b = await startTestBridge(t, { commandModules: [EXTRA], poolThreads: 2 });
  const died = await b.cmd('exit_game');
  t.equal(died.status, 500);
  t.match(died.body.error, { code: 'GAME_CRASH', message: /game thread exited \(code 7\)/ });
  let status = 0;
  const deadline = Date.now() + 20_000;
  while (status !== 200 && Date.now() < deadline) {
    const reply = await b.cmd('get_world_state');
    status = reply.status;
    if (status !== 200) {
      t.equal(reply.body.error.code, 'BUSY', 'while restarting: BUSY, safe to retry');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  t.equal(status, 200, 'served again by a fresh game thread');
  t.equal(b.bridge.stats().gameThreadRestarts, 1);
  t.equal(b.bridge.stats().slotsInUse, 0);
  t.same(unhandled, []);
});
