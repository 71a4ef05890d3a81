// decisions §12, step over HTTP: its answer, its bad inputs (400 BAD_ARGS, nothing runs), each tick's
// events going out as usual, the 25 s budget (shortened here) answering stopped "deadline" with the
// ticks it ran, and the realtime rules: refused while the world runs (422, nothing ran), allowed
// while it is paused. A step is never a batch item.
import t from 'tap';
import { startResearch } from './helpers.ts';

// Real bridges, several per file, on a loaded machine.
t.setTimeout(180_000);

t.test('step answers tick_before, tick, ticks and the world hash', async (t) => {
  const b = await startResearch(t);
  await b.ok('spawn', { entity_id: 'walker', x: 10, y: 10, count: 4 });
  const answer = await b.cmd('step', { ticks: 7 });
  t.equal(answer.status, 200);
  t.same(Object.keys(answer.body.result).sort(), ['hash', 'tick', 'tick_before', 'ticks']);
  t.match(answer.body.result, { tick_before: 0, tick: 7, ticks: 7, hash: /^[0-9a-f]{16}$/ });
  t.equal(answer.body.tick, 7, 'the envelope tick is the tick reached');
  t.equal(answer.body.result.hash, (await b.ok('world_hash')).hash, "the hash is world_hash's");
  t.equal(b.advancedTicks(), 7, 'one advance(1) per tick');
  t.match(await b.ok('step', { ticks: 10_000 }), { tick_before: 7, tick: 10_007, ticks: 10_000 }, 'the most one step may ask for');
});

t.test('bad ticks: 400 BAD_ARGS, and nothing runs', async (t) => {
  const b = await startResearch(t);
  const before = await b.ok('world_hash');
  for (const args of [{ ticks: 0 }, { ticks: -1 }, { ticks: 10_001 }, { ticks: 1.5 }, { ticks: '10' }, { ticks: null }, {}, { ticks: 1, extra: 1 }]) {
    const answer = await b.cmd('step', args);
    t.equal(answer.status, 400, JSON.stringify(args));
    t.equal(answer.body.error.code, 'BAD_ARGS');
  }
  t.match((await b.cmd('step', { ticks: 0 })).body.error.message, /ticks/, 'the message names the arg');
  t.same(await b.ok('world_hash'), before);
  t.equal(b.advancedTicks(), 0);
});

t.test("each tick's events go out as usual, at their own tick", async (t) => {
  const b = await startResearch(t);
  await b.ok('spawn', { entity_id: 'walker', x: 1, y: 1 });
  await b.ok('step', { ticks: 5 });
  const events = (await b.ok('recv_events', { kinds: ['ticked'] })).items;
  t.same(
    events.map((e: { tick: number; walkers: number }) => [e.tick, e.walkers]),
    [
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [5, 1],
    ],
  );
});

t.test("a long step (several batches of 100 ms): every tick's event arrives, once, in order, at its own tick", async (t) => {
  const b = await startResearch(t, { game: { msPerTick: 15 } });
  await b.ok('spawn', { entity_id: 'walker', x: 1, y: 1 });
  const answer = await b.ok('step', { ticks: 40 });
  t.equal(answer.ticks, 40);
  const { items } = await b.ok('recv_events', { kinds: ['ticked'], max: 100 });
  t.same(
    items.map((e: { tick: number }) => e.tick),
    Array.from({ length: 40 }, (_, i) => i + 1),
    'ticks 1..40, one event each',
  );
  const seqs = items.map((e: { seq: number }) => e.seq);
  t.same(
    seqs,
    seqs.map((_: number, i: number) => seqs[0] + i),
    'numbered in the order emitted, no gap',
  );
});

t.test('the step budget: past it, the step stops after the tick in progress and answers stopped "deadline"', async (t) => {
  const b = await startResearch(t, { game: { msPerTick: 20 }, bridge: { timings: { stepBudgetMs: 300 } } });
  const t0 = performance.now();
  const answer = await b.cmd('step', { ticks: 10_000 });
  const elapsed = performance.now() - t0;
  t.equal(answer.status, 200);
  const result = answer.body.result;
  t.equal(result.stopped, 'deadline');
  t.ok(result.ticks >= 1 && result.ticks < 10_000, `ran ${result.ticks} of 10000 ticks`);
  t.equal(result.tick - result.tick_before, result.ticks, 'the answer counts exactly the ticks run');
  t.equal(b.advancedTicks(), result.ticks);
  t.ok(elapsed < 10_000, `answered in ${Math.round(elapsed)} ms, not after 10000 ticks (200 s)`);
  const whole = await b.ok('step', { ticks: 2 });
  t.notOk('stopped' in whole, 'a step inside its budget has no stopped');
});

t.test('realtime: step while the world runs is 422 GAME_REJECTED, and no tick of it runs', async (t) => {
  const b = await startResearch(t, { clock: 'realtime', config: { fps: 10 } });
  const answer = await b.cmd('step', { ticks: 50 });
  t.equal(answer.status, 422);
  t.equal(answer.body.error.code, 'GAME_REJECTED');
  t.match(answer.body.error.message, /step runs only while the world is paused under the realtime clock; pause first, or start with --lockstep/);
  t.equal(b.advancedTicks(), 0, 'the world is untouched: advance never ran');
  const caps = (await (await b.fetch('/health')).json()) as any;
  t.equal(caps.clock, 'realtime');
});

t.test('realtime: step runs while the world is paused, exactly the ticks asked', async (t) => {
  const b = await startResearch(t, { clock: 'realtime', config: { fps: 30 } });
  await b.ok('pause');
  const before = (await b.ok('world_hash')).tick;
  const stepped = await b.ok('step', { ticks: 5 });
  t.same([stepped.tick_before, stepped.tick, stepped.ticks], [before, before + 5, 5]);
  t.equal((await b.ok('world_hash')).hash, stepped.hash, 'paused: nothing moved after it');
  await b.ok('resume');
  t.equal((await b.cmd('step', { ticks: 1 })).status, 422, 'running again: refused again');
});

t.test('a step is never a batch item: the batch is refused, naming it', async (t) => {
  const b = await startResearch(t);
  const answer = await b.cmd('batch', { commands: [{ name: 'world_hash' }, { name: 'step', args: { ticks: 1 } }] });
  t.equal(answer.status, 400);
  t.equal(answer.body.error.code, 'BAD_ARGS');
  t.match(answer.body.error.message, /commands\[1\].*step runs many ticks, and a batch runs in one frame/);
  t.equal(b.advancedTicks(), 0);
  const reads = await b.cmd('batch', { commands: [{ name: 'world_hash' }, { name: 'savepoint' }] });
  t.equal(reads.status, 200, 'world_hash and savepoint may be batch items');
});
