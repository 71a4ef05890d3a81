// decisions §12, the lockstep clock over HTTP: the world moves only through step (not with wall
// time), queued commands run as they arrive rather than at the next frame, 32 entries a drain and
// admission still hold, pulsed runs pulse once a stepped tick, and a game that cannot be stepped
// (its own loop, no advance) is refused at start, naming why.
import t from 'tap';
import { startBridge } from '../../src/bridge.ts';
import { startTestBridge, tempDir, TINY_GAME, writeConfig } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';
import type { Mark } from '../fixtures/batch-commands.ts';
import { startResearch } from './helpers.ts';
import pino from 'pino';

// Real bridges, several per file, on a loaded machine.
t.setTimeout(180_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('the tick does not move with wall time: a second later, the same tick and the same hash', async (t) => {
  const b = await startResearch(t, { clock: 'lockstep' });
  const health = (await (await b.fetch('/health')).json()) as any;
  t.equal(health.clock, 'lockstep', '/health says which clock runs');
  const caps = (await (await b.fetch('/capabilities')).json()) as any;
  t.equal(caps.clock, 'lockstep', '/capabilities too');
  await b.ok('spawn', { entity_id: 'walker', x: 3, y: 3, count: 5 });
  const before = await b.ok('world_hash');
  await sleep(1000);
  const after = await b.ok('world_hash');
  t.same(after, before, 'tick and hash unchanged');
  t.equal(after.tick, 0);
  t.equal(b.advancedTicks(), 0, 'nothing but step advances the world');
  const stepped = await b.ok('step', { ticks: 3 });
  t.same([stepped.tick_before, stepped.tick, stepped.ticks], [0, 3, 3]);
  t.equal((await b.ok('world_hash')).tick, 3);
});

t.test('commands run as they arrive: 100 sequential spawns take far less than 100 frames at fps 5 (20 s)', async (t) => {
  const b = await startResearch(t, { clock: 'lockstep', config: { fps: 5 } });
  const t0 = performance.now();
  for (let n = 0; n < 100; n++) await b.ok('spawn', { entity_id: 'walker', x: n % 64, y: 1 });
  const elapsed = performance.now() - t0;
  // At one frame each (fps 5) they would take 20 s; the bound is wide for a loaded machine.
  t.ok(elapsed < 20_000, `100 spawns in ${Math.round(elapsed)} ms, under the 20 s of 100 frames`);
  t.equal((await b.ok('get_world_state')).population_alive, 100);
  t.equal((await b.ok('world_hash')).tick, 0, 'and the world did not tick');
});

t.test('32 entries a drain: commands queued behind a long step run at most 32 together', async (t) => {
  const dir = tempDir('gcb-research-');
  writeConfig(dir, { clock: 'lockstep', maxConcurrent: 64 });
  const b = await startTestBridge(t, {
    configDir: dir,
    game: fixture('research-game.ts'),
    gameOptions: { msPerTick: 10 },
    commandModules: [fixture('batch-commands.ts')],
  });
  const step = b.cmd('step', { ticks: 60 }); // ~600 ms on the game thread
  await sleep(100);
  const marks = await Promise.all(Array.from({ length: 60 }, (_, n) => b.cmd('mark', { tag: `m${n}` })));
  t.equal((await step).status, 200);
  t.ok(
    marks.every((m) => m.status === 200),
    'every mark ran',
  );
  const perDrain = new Map<number, number>();
  for (const { body } of marks) perDrain.set((body.result as Mark).frame, (perDrain.get((body.result as Mark).frame) ?? 0) + 1);
  const largest = Math.max(...perDrain.values());
  t.ok(largest <= 32, `at most 32 in one drain (largest: ${largest})`);
  t.ok(perDrain.size >= 2, `60 queued entries took more than one drain (${perDrain.size})`);
});

t.test('admission holds: with one slot, a long step holds it and another request waits, then gets BUSY', async (t) => {
  const b = await startResearch(t, {
    clock: 'lockstep',
    config: { maxConcurrent: 1 },
    game: { msPerTick: 20 },
    bridge: { timings: { admissionWaitMs: 200 } },
  });
  const step = b.cmd('step', { ticks: 50 }); // ~1 s
  await sleep(100);
  const refused = await b.cmd('world_hash');
  t.equal(refused.status, 503);
  t.equal(refused.body.error.code, 'BUSY');
  t.equal((await step).status, 200);
  t.equal((await b.cmd('world_hash')).status, 200, 'the slot came back');
});

t.test('a pulsed invoke_power pulses once per stepped tick, never by wall time', async (t) => {
  const b = await startResearch(t, { clock: 'lockstep' });
  const run = b.cmd('invoke_power', { power_id: 'drop', x: 1, y: 1, pulses: 3 });
  await sleep(300);
  t.equal((await b.ok('get_world_state')).population_alive, 0, 'no pulse while no tick runs');
  await b.ok('step', { ticks: 1 });
  t.equal((await b.ok('get_world_state')).population_alive, 1, 'one pulse for one tick');
  await b.ok('step', { ticks: 5 });
  const answer = await run;
  t.equal(answer.status, 200);
  t.match(answer.body.result, { pulses: 3, pulses_applied: 3, accepted_count: 3 });
  t.notOk('stopped' in answer.body.result);
  t.equal((await b.ok('get_world_state')).population_alive, 3, 'the run ended after its third tick');
});

t.test('pause and resume only set the flag under lockstep; step runs either way', async (t) => {
  const b = await startResearch(t, { clock: 'lockstep' });
  await b.ok('pause');
  const paused = await b.ok('step', { ticks: 2 });
  t.equal(paused.tick, 2, 'a paused lockstep world steps');
  const hashPaused = (await b.ok('world_hash')).hash;
  await b.ok('resume');
  t.not((await b.ok('world_hash')).hash, hashPaused, 'the pause flag is part of the state');
  await sleep(300);
  t.equal((await b.ok('world_hash')).tick, 2, 'resumed, it still does not move by itself');
});

t.test('a game that cannot be stepped is refused at start under lockstep, naming why', async (t) => {
  const quiet = pino({ level: 'silent' });
  const noAdvance = tempDir();
  writeConfig(noAdvance, { clock: 'lockstep' });
  await t.rejects(
    startBridge({ configDir: noAdvance, port: 0, game: TINY_GAME, logger: quiet, poolThreads: 1 }),
    /does not export advance\(ticks\), which the lockstep clock needs/,
  );
  const ownLoop = tempDir();
  writeConfig(ownLoop, { clock: 'lockstep' });
  await t.rejects(
    startBridge({ configDir: ownLoop, port: 0, game: fixture('game-own-loop.ts'), logger: quiet, poolThreads: 1 }),
    /runs its own frame loop \(it exports run\(host\)\), so it cannot run under the lockstep clock/,
  );
  // --lockstep (the library's clock option) overrides the file the same way.
  const flag = tempDir();
  writeConfig(flag, {});
  await t.rejects(startBridge({ configDir: flag, port: 0, game: TINY_GAME, logger: quiet, poolThreads: 1, clock: 'lockstep' }), /advance/);
});

t.test('a game without advance has no step: disabled, named in disabled_commands, 404 saying why', async (t) => {
  const b = await startTestBridge(t, { game: TINY_GAME });
  const caps = (await (await b.fetch('/capabilities')).json()) as any;
  t.equal(caps.clock, 'realtime');
  t.notOk(
    caps.commands.some((c: { name: string }) => c.name === 'step'),
    'not among the commands',
  );
  t.match(
    caps.disabled_commands.find((d: { name: string }) => d.name === 'step'),
    { missing: ['advance', 'stateHash'] },
  );
  const answer = await b.cmd('step', { ticks: 1 });
  t.equal(answer.status, 404);
  t.match(answer.body.error, { code: 'UNKNOWN_COMMAND', message: /command 'step' is disabled: the game module does not export advance, stateHash/ });
  for (const name of ['world_hash', 'savepoint', 'rewind', 'savepoint_drop']) t.equal((await b.cmd(name, {})).status, 404, `${name} is off too`);
});
