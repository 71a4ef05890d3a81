// decisions §11 (high): game code that throws outside any call (a timer, a promise left
// rejected) kills its thread at most, never the bridge process. Over a real process, since the
// point is the process surviving: on v0.3 the first timer ended it ("Emitted 'error' event on
// Worker instance"). A game-thread death answers what was queued or running GAME_CRASH naming what
// was thrown (stack top relative to the package, no machine path), then BUSY until a fresh game
// thread serves; a pool worker's death fails the task running on it (GAME_CRASH) and the pool
// replaces the worker. Both are logged.
import { spawn, type ChildProcess } from 'node:child_process';
import t from 'tap';
import { fixture, nodeArgs, REPO_ROOT } from '../helpers/paths.ts';
import { tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { POOL_REJECT_DIMENSION } from '../fixtures/hardening-throwing-game.ts';
import { startTestBridge } from '../helpers/bridge.ts';

// A real process that starts under tsx and replaces its game thread twice: about 30 s on a loaded
// 2-core machine, more than tap's default 60 s leaves room for.
t.setTimeout(150_000);

const GAME = fixture('hardening-throwing-game.ts');
const COMMANDS = fixture('hardening-throwing-commands.ts');

interface Child {
  child: ChildProcess;
  url: string;
  /** Parsed log lines (stderr) so far. */
  logs(): Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<number | NodeJS.Signals | null>;
  cmd(name: string, args?: unknown): Promise<{ status: number; body: any }>;
}

async function startChild(t: Tap.Test): Promise<Child> {
  const dir = tempDir('gcb-faults-');
  const token = writeConfig(dir);
  // One pool worker, so the task that runs when a worker dies is known.
  const child = spawn(process.execPath, nodeArgs('test/fixtures/bridge-process.ts', dir, GAME.href, COMMANDS.href), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GCB_TEST_POOL_THREADS: '1' },
  });
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await until(() => /listening on /.test(out) || child.exitCode !== null, 60_000, 'the bridge process to start');
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
  return {
    child,
    url,
    stderr: () => err,
    logs: () =>
      err
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    async cmd(name, args) {
      const response = await fetch(`${url}/cmd`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, args }),
      });
      return { status: response.status, body: await response.json() };
    },
  };
}
declare namespace Tap {
  type Test = import('tap').Test;
}

/** Polls `probe` until it answers 200 and `done` holds; every other answer is BUSY or GAME_CRASH. */
async function settles(t: Tap.Test, c: Child, what: string, probe: () => Promise<{ status: number; body: any }>, done: (body: any) => boolean = () => true) {
  const seen: string[] = [];
  const deadline = Date.now() + 30_000;
  for (;;) {
    const reply = await probe();
    if (reply.status === 200 && done(reply.body.result)) break;
    if (reply.status !== 200) seen.push(`${reply.body.error.code}: ${reply.body.error.message}`);
    if (Date.now() > deadline) throw new Error(`${what}: not settled within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.same(
    seen.filter((answer) => !answer.startsWith('BUSY') && !answer.startsWith('GAME_CRASH')),
    [],
    `${what} (before: ${[...new Set(seen.map((s) => s.split(':')[0]))].join(', ') || 'nothing'})`,
  );
  return seen;
}

t.test('game code throwing outside any call kills its thread, never the process', async (t) => {
  const c = await startChild(t);
  t.equal((await c.cmd('get_world_state')).status, 200);

  await t.test('a timer thrown on the game thread: what was running gets GAME_CRASH naming it', async (t) => {
    // The timer fires 1.5 s after get_tile answers; the pulsed run sent next takes 200 frames
    // (over 3 s), so it is queued or running when the thread dies, whatever the machine's load.
    t.equal((await c.cmd('get_tile', { x: 1, y: 15 })).status, 200, 'get_tile itself answers');
    const pulsed = await c.cmd('invoke_power', { power_id: 'rain', x: 40, y: 40, pulses: 200 });
    t.equal(pulsed.status, 500);
    t.match(pulsed.body.error, {
      code: 'GAME_CRASH',
      command: 'invoke_power',
      message: /game code threw outside any command \(TypeError: a timer left by getTile\)/,
      exception: { type: 'TypeError', message: 'a timer left by getTile', stack_top: /test\/fixtures\/hardening-throwing-game\.ts:\d+/ },
    });
    t.notMatch(JSON.stringify(pulsed.body), REPO_ROOT, 'no absolute path of the machine in the answer');
    await settles(t, c, 'served again by a fresh game thread', () => c.cmd('get_world_state'));
  });

  await t.test('a promise left rejected on the game thread: the thread is replaced, the process lives', async (t) => {
    // The mark: a fresh world (from the seed) has no lava at (5, 5).
    t.equal((await c.cmd('paint_tile', { x: 5, y: 5, tile_id: 'lava' })).status, 200);
    t.equal((await c.cmd('get_tile', { x: 2, y: 0 })).status, 200, 'get_tile itself answers');
    await settles(
      t,
      c,
      'a fresh world serves',
      () => c.cmd('get_tile', { x: 5, y: 5 }),
      (tile) => tile.tile_id !== 'lava',
    );
  });

  await t.test('a pool worker: a command module leaves a throwing timer', async (t) => {
    t.same((await c.cmd('leave_throwing_timer', { ms: 300 })).body.result, { left: 'timer' });
    // The only pool worker is busy with this when the timer fires: the task dies with it.
    const running = await c.cmd('pool_sleep', { ms: 5000 });
    t.equal(running.status, 500);
    t.match(running.body.error, { code: 'GAME_CRASH', command: 'pool_sleep', message: /a timer left by leave_throwing_timer/ });
    t.equal((await c.cmd('whoami')).status, 200, 'a replaced worker serves the next pool command');
  });

  await t.test('a pool worker: a command module leaves a rejected promise', async (t) => {
    t.equal((await c.cmd('leave_rejection', { ms: 300 })).status, 200);
    const running = await c.cmd('pool_sleep', { ms: 5000 });
    t.match(running.body.error, { code: 'GAME_CRASH', command: 'pool_sleep', message: /a promise left rejected by leave_rejection/ });
    t.equal((await c.cmd('whoami')).status, 200);
  });

  t.equal(c.child.exitCode, null, 'the bridge process is still running');
  t.equal((await c.cmd('get_world_state')).status, 200);
  c.child.kill('SIGTERM');
  t.equal(await c.exited, 0, 'and it stops cleanly');
  t.notMatch(c.stderr(), /Emitted 'error' event/, 'no error event reached the main loop');
  const lines = c.logs();
  const gameDeaths = lines.filter((line) => line.msg === 'the game thread died; answering what was pending with GAME_CRASH and starting a fresh world');
  t.same(
    gameDeaths.map((line) => (line.fault as { message: string }).message),
    ['a timer left by getTile', 'a promise left rejected by getTile'],
    'each game-thread death is logged with what was thrown',
  );
});

// In process, where the pool and the log are visible: a pool worker that dies with no task on it is
// reported by piscina to the pool, logged once, and replaced (the process-survival half is above).
t.test('a pool worker that dies with no task on it is logged and replaced', async (t) => {
  const b = await startTestBridge(t, { game: GAME, commandModules: [COMMANDS], poolThreads: 1 });
  const deaths = () => b.logs.filter((line) => /^a pool worker died outside any command/.test(String(line.msg)));
  const causes: Array<[string, () => Promise<{ status: number; body: any }>, RegExp]> = [
    // Each replacement boots a worker under tsx (seconds): two causes, one of each kind and source.
    ['a command module leaves a timer', () => b.cmd('leave_throwing_timer', { ms: 0 }), /a timer left by leave_throwing_timer/],
    [
      'the game module leaves a rejection',
      () => b.cmd('screenshot', { max_dimension: POOL_REJECT_DIMENSION, format: 'png' }),
      /a promise left rejected by renderSnapshot/,
    ],
  ];
  for (const [what, cause, fault] of causes) {
    const before = deaths().length;
    const first = await cause();
    if (first.status === 200) {
      // Nothing else runs in the meantime, so the worker dies alone: piscina reports it to the pool.
      await until(() => deaths().length === before + 1, 20_000, `${what}: the death to be logged`);
      t.match(deaths().at(-1)!.msg, fault, `${what}: logged with what was thrown`);
    } else {
      // What it left fired while the task still ran (the screenshot's encoding awaits): the task died with it.
      t.match(first.body.error, { code: 'GAME_CRASH', message: fault }, `${what}: the task died with its worker`);
    }
    await until(() => b.bridge.stats().poolThreads === 1, 20_000, 'the pool to replace its worker');
    t.equal((await b.cmd('pool_sleep', { ms: 0 })).status, 200, `${what}: the next pool command is served`);
  }
});
