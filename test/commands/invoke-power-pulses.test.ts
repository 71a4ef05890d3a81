// invoke_power with pulses > 1: one per-frame job a run, one pulse a frame along (x, y) → (x2, y2),
// and the early stops (deadline, world_changed, error over HTTP; turn_ended in a unit test, since it
// needs a turn-based session), plus BUSY for the 33rd job.
import t from 'tap';
import { JobRegistry } from '../../src/dispatch/jobs.ts';
import { createSharedState, kTurnHolder, kWorldEpoch } from '../../src/shared/layout.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { pulsePosition, startPulsedRun, type PulseEnv, type PulsePlan } from '../../src/commands/shared/pulse-run.ts';
import { until } from '../helpers/bridge.ts';
import { checkException, fails, fixture, ok, startSandbox } from './helpers.ts';

const god: CallerContext = {
  agentId: 'legacy',
  agentIndex: 0,
  role: 'god',
  permissions: 511,
  claimedKingdomId: null,
  scenario: 'sandbox',
  partialIntel: false,
  turnBased: false,
  legacyMode: true,
};

function fakeEnv(options: { caller?: Partial<CallerContext>; budgetMs?: number; invoke?: (x: number, y: number) => boolean; capacity?: number } = {}) {
  const shared = createSharedState();
  const jobs = new JobRegistry(shared.control, options.capacity ?? 32);
  const calls: Array<{ x: number; y: number }> = [];
  const env: PulseEnv = {
    game: {
      invokePower: (_id: string, x: number, y: number) => {
        calls.push({ x, y });
        return options.invoke ? options.invoke(x, y) : true;
      },
    },
    caller: { ...god, ...options.caller },
    jobs,
    shared,
    timings: { pulsedRunBudgetMs: options.budgetMs ?? 25_000 },
  };
  return { env, jobs, shared, calls };
}

const plan = (pulses: number, extra: Partial<PulsePlan> = {}): PulsePlan => ({ powerId: 'fire', x: 0, y: 0, x2: 0, y2: 0, radius: null, pulses, ...extra });

t.test('the pulse run, unit', async (t) => {
  t.test('positions run from (x, y) to (x2, y2), both ends included', async (t) => {
    const p = plan(5, { x: 10, y: 20, x2: 18, y2: 12 });
    t.same(
      [0, 1, 2, 3, 4].map((i) => pulsePosition(p, i)),
      [
        { x: 10, y: 20 },
        { x: 12, y: 18 },
        { x: 14, y: 16 },
        { x: 16, y: 14 },
        { x: 18, y: 12 },
      ],
    );
  });

  t.test('one pulse a frame, settled when all are applied', async (t) => {
    const { env, jobs, calls } = fakeEnv({ invoke: (x) => x !== 2 });
    const done = startPulsedRun(env, plan(4, { x2: 3 }));
    t.equal(jobs.size, 1, 'one job');
    for (let frame = 0; frame < 4; frame++) {
      t.equal(calls.length, frame);
      jobs.step();
    }
    t.same(await done, { power_id: 'fire', pulses: 4, pulses_applied: 4, accepted_count: 3 });
    t.equal(jobs.size, 0, 'the job left the registry');
  });

  t.test("turn_ended: the caller's turn passed (a god's run never stops on turns)", async (t) => {
    const player = fakeEnv({ caller: { role: 'faction_player', turnBased: true, agentIndex: 1 } });
    Atomics.store(player.shared.control, kTurnHolder, 2);
    const done = startPulsedRun(player.env, plan(10));
    player.jobs.step();
    player.jobs.step();
    Atomics.store(player.shared.control, kTurnHolder, 1);
    player.jobs.step();
    t.same(await done, { power_id: 'fire', pulses: 10, pulses_applied: 2, accepted_count: 2, stopped: 'turn_ended' });

    const godRun = fakeEnv({ caller: { role: 'god', turnBased: true, agentIndex: 2 } });
    Atomics.store(godRun.shared.control, kTurnHolder, 1);
    const godDone = startPulsedRun(godRun.env, plan(2));
    godRun.jobs.step();
    godRun.jobs.step();
    t.notOk((await godDone).stopped);
  });

  t.test('world_changed, deadline, error', async (t) => {
    const swapped = fakeEnv();
    const a = startPulsedRun(swapped.env, plan(10));
    swapped.jobs.step();
    Atomics.add(swapped.shared.control, kWorldEpoch, 1);
    swapped.jobs.step();
    t.match(await a, { pulses_applied: 1, stopped: 'world_changed' });

    let clock = 0;
    const late = fakeEnv({ budgetMs: 100 });
    const b = startPulsedRun(late.env, plan(10), () => clock);
    late.jobs.step();
    clock = 100;
    late.jobs.step();
    t.match(await b, { pulses_applied: 1, stopped: 'deadline' });

    const broken = fakeEnv({
      invoke: (x) => {
        if (x === 1) throw new Error('jammed');
        return true;
      },
    });
    const c = startPulsedRun(broken.env, plan(3, { x2: 2 }));
    broken.jobs.step();
    broken.jobs.step();
    t.same(await c, { power_id: 'fire', pulses: 3, pulses_applied: 1, accepted_count: 1, stopped: 'error', error_message: 'jammed' });

    const closing = fakeEnv();
    const d = startPulsedRun(closing.env, plan(3));
    closing.jobs.cancelAll();
    t.match(await d, { pulses_applied: 0, stopped: 'error' }, 'a bridge that closes settles the run');
  });

  t.test('a full registry throws BUSY and registers nothing', async (t) => {
    const { env, jobs } = fakeEnv({ capacity: 2 });
    void startPulsedRun(env, plan(5));
    void startPulsedRun(env, plan(5));
    t.throws(() => startPulsedRun(env, plan(5)), { code: 'BUSY', message: /per-frame job registry is full/ });
    t.equal(jobs.size, 2);
    jobs.cancelAll();
  });
});

t.test('pulsed runs over HTTP', async (t) => {
  // 5 fps: a frame every 200 ms, so a 200-pulse run would last 40 s and the 3 s budget ends it.
  const b = await startSandbox(t, { config: { fps: 5, maxConcurrent: 64 }, timings: { pulsedRunBudgetMs: 3_000 } });
  await ok(t, b, 'pause'); // jobs still run while paused; actors stay where pulses drop them

  await t.test('a short run applies every pulse along the line', async (t) => {
    await ok(t, b, 'paint_tile', { x: 62, y: 60, tile_id: 'grass', radius: 4 });
    const r = await ok(t, b, 'invoke_power', { power_id: 'spawn_sheep', x: 60, y: 60, x2: 64, y2: 60, pulses: 3 });
    t.same(r, { power_id: 'spawn_sheep', pulses: 3, pulses_applied: 3, accepted_count: 3 }, 'no stopped field when it ran to the end');
    const sheep = await ok(t, b, 'query_actors', { race: 'sheep', in_rect: { x: 60, y: 60, w: 5, h: 1 } });
    t.same(sheep.items.map((a: { x: number }) => a.x).sort(), [60, 62, 64], 'one pulse at each interpolated tile');
  });

  await t.test('deadline: a run past its budget stops early and still answers 200', async (t) => {
    const t0 = Date.now();
    const r = await ok(t, b, 'invoke_power', { power_id: 'rain', x: 50, y: 50, pulses: 200 });
    const ms = Date.now() - t0;
    t.match(r, { pulses: 200, stopped: 'deadline' });
    // About 15 pulses at 5 fps; a loaded machine may lose frames, never add them.
    t.ok(r.pulses_applied >= 1 && r.pulses_applied <= 18, `about 3 s of 5 fps pulses (${r.pulses_applied})`);
    t.ok(ms >= 2_900 && ms < 15_000, `answered after the budget (${ms} ms)`);
  });

  await t.test('BUSY: the 33rd concurrent run finds the job registry full', async (t) => {
    const runs = Array.from({ length: 32 }, (_, i) => b.cmd('invoke_power', { power_id: 'rain', x: i, y: 3, pulses: 200 }));
    await until(() => b.bridge.stats().dispatcherPending === 32 && b.bridge.stats().queued === 0, 20_000, '32 runs registered');
    const busy = await b.cmd('invoke_power', { power_id: 'rain', x: 40, y: 3, pulses: 200 });
    t.equal(busy.status, 503);
    t.equal(busy.body.error.code, 'BUSY');
    t.match(busy.body.error.message, /per-frame job registry is full \(32 jobs\)/, 'the message names the registry');
    t.equal(busy.headers.get('retry-after'), '1');
    const one = await b.cmd('invoke_power', { power_id: 'rain', x: 40, y: 3 });
    t.equal(one.status, 200, 'a one-pulse call needs no job');
    const ended = await Promise.all(runs);
    t.ok(
      ended.every((r) => r.status === 200 && r.body.result.stopped === 'deadline'),
      'the 32 runs end at their budget',
    );
    t.match(await ok(t, b, 'invoke_power', { power_id: 'rain', x: 40, y: 3, pulses: 2 }), { pulses_applied: 2 }, 'the registry has room again');
  });
});

t.test('pulsed runs at the full 25 s budget: error and world_changed', async (t) => {
  // The spec's budget, so only the event under test can end a run (the first generate_world on a
  // pool thread may take seconds while it loads the game module).
  const b = await startSandbox(t, { game: fixture('sandbox-faulty-power.ts'), config: { fps: 5 } });

  await t.test('error: the game throws mid-run; the pulses before it stand', async (t) => {
    const r = await ok(t, b, 'invoke_power', { power_id: 'fire', x: 10, y: 10, x2: 16, y2: 10, pulses: 7 });
    t.match(r, { power_id: 'fire', pulses: 7, pulses_applied: 3, accepted_count: 3, stopped: 'error', error_message: /jammed at column 13/ });
    // One pulse straight into the fault is not a run: the throw is the answer (GAME_CRASH).
    const crash = await fails(t, b, 'invoke_power', { power_id: 'fire', x: 13, y: 10 }, 500, 'GAME_CRASH');
    t.match(crash.exception, { message: /jammed/ });
    const toggle = await fails(t, b, 'invoke_power', { power_id: 'world_peace', x: 13, y: 10, pulses: 5 }, 422, 'GAME_REJECTED');
    checkException(t, toggle);
  });

  await t.test('world_changed: a world swap stops the run before its next pulse', async (t) => {
    const run = b.cmd('invoke_power', { power_id: 'rain', x: 50, y: 50, pulses: 200 });
    await until(() => b.bridge.stats().dispatcherPending === 1 && b.bridge.stats().queued === 0, 10_000, 'the run to start');
    await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2, seed: 5 });
    const r = await run;
    t.equal(r.status, 200);
    t.match(r.body.result, { pulses: 200, stopped: 'world_changed' });
    t.ok(r.body.result.pulses_applied >= 1 && r.body.result.pulses_applied < 200);
  });
});
