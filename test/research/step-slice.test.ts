// decisions §15, the step slice over HTTP: a step that has run [Game] step_slice_ms while a command
// of another agent waits stops after the tick in progress and answers stopped "yielded" with the
// ticks it ran; the waiting command runs at the tick reached. Alone (its own commands waiting, the
// bridge's own calls), a step runs to its end. The same under realtime while paused.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { agent, token } from '../multi-agent/helpers.ts';
import { RESEARCH_GAME } from './helpers.ts';

t.setTimeout(180_000);

const PLAYER = 'ares';
const GOD = 'zeus';
const OBSERVER = 'argus';
const MS_PER_TICK = 2;

async function start(t: Test, clock: 'lockstep' | 'realtime'): Promise<TestBridge> {
  const dir = tempDir('gcb-slice-');
  writeConfig(dir, { clock, fps: 30 });
  appendFileSync(join(dir, 'bridge.toml'), 'step_slice_ms = 50\n');
  // The god is the first agent: the bridge's own calls (objectives, each second) run as it.
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({ scenario: 'sandbox', agents: [agent(GOD, 'god'), agent(PLAYER, 'faction_player'), agent(OBSERVER, 'observer')] }),
  );
  return startTestBridge(t, { game: RESEARCH_GAME, gameOptions: { msPerTick: MS_PER_TICK }, configDir: dir });
}

function calls(b: TestBridge) {
  const as = (id: string, name: string, args?: unknown) => b.cmd(name, args, { headers: { authorization: `Bearer ${token(id)}` } });
  const tick = async () => ((await (await b.fetch('/health', { headers: { authorization: `Bearer ${token(GOD)}` } })).json()) as { tick: number }).tick;
  /** `id`'s step of `ticks`, once its first tick has run. */
  const stepping = async (id: string, ticks: number) => {
    const before = await tick();
    const answer = as(id, 'step', { ticks });
    for (let now = before; now === before;) now = await tick();
    return { answer };
  };
  return { as, tick, stepping };
}

t.test('lockstep', async (t) => {
  const b = await start(t, 'lockstep');
  const { as, stepping } = calls(b);

  await t.test("a faction player's long step gives way to an observer's world_hash, which runs at the tick reached", async (t) => {
    const step = await stepping(PLAYER, 10_000);
    const hash = await as(OBSERVER, 'world_hash');
    const stepped = await step.answer;
    t.equal(stepped.status, 200);
    const result = stepped.body.result;
    t.same(Object.keys(result).sort(), ['stopped', 'tick', 'tick_before', 'ticks'], 'the answer: the ticks it ran, stopped, no hash (no read_all)');
    t.equal(result.stopped, 'yielded');
    t.ok(result.ticks >= 1 && result.ticks < 10_000, `ran ${result.ticks} of 10000 ticks`);
    t.equal(result.tick - result.tick_before, result.ticks, 'it counts exactly the ticks it ran');
    t.equal(stepped.body.tick, result.tick, 'the envelope tick is the tick reached');
    t.equal(hash.status, 200);
    t.equal(hash.body.result.tick, result.tick, 'the observer read the world at the tick the step reached');
    const rest = await as(PLAYER, 'step', { ticks: 3 });
    t.same([rest.body.result.tick_before, rest.body.result.tick], [result.tick, result.tick + 3], 'the caller steps again for the rest, from there');
  });

  await t.test("a god's spawn: it runs at the tick reached, its place recorded there; a god's yielded step has its hash", async (t) => {
    const step = await stepping(PLAYER, 10_000);
    const spawned = await as(GOD, 'spawn', { entity_id: 'walker', x: 2, y: 2 });
    const stepped = (await step.answer).body.result;
    t.equal(stepped.stopped, 'yielded');
    t.equal(spawned.status, 200);
    const records = (await as(GOD, 'recv_events', { kinds: ['command'], max: 1000 })).body.result.items as Array<{ name: string; place?: { tick: number } }>;
    t.equal(records.filter((r) => r.name === 'spawn').at(-1)?.place?.tick, stepped.tick, 'the spawn took its place at the tick reached');

    const godStep = await stepping(GOD, 10_000);
    const read = await as(OBSERVER, 'get_world_state');
    const godStepped = (await godStep.answer).body.result;
    t.equal(godStepped.stopped, 'yielded', "a god's step gives way to another agent too");
    t.equal(read.body.result.tick, godStepped.tick);
    t.equal(godStepped.hash, (await as(GOD, 'world_hash')).body.result.hash, 'with the hash of the tick it reached');
  });

  await t.test("alone it runs to its end: its own commands waiting and the bridge's own calls (over a second) do not make it give way", async (t) => {
    const step = await stepping(PLAYER, 700);
    const own = await as(PLAYER, 'get_world_state');
    const stepped = (await step.answer).body.result;
    t.equal(stepped.ticks, 700, 'every tick asked for');
    t.notOk('stopped' in stepped, 'no stopped');
    t.equal(own.body.result.tick, stepped.tick, "the player's own read waited for its step");
  });
});

t.test('realtime, while paused: the same', async (t) => {
  const b = await start(t, 'realtime');
  const { as, stepping } = calls(b);
  t.equal((await as(GOD, 'pause')).status, 200);
  const step = await stepping(PLAYER, 10_000);
  const hash = await as(OBSERVER, 'world_hash');
  const stepped = (await step.answer).body.result;
  t.equal(stepped.stopped, 'yielded');
  t.ok(stepped.ticks < 10_000);
  t.equal(hash.body.result.tick, stepped.tick, 'paused: nothing moved the world between');
  const alone = (await as(PLAYER, 'step', { ticks: 100 })).body.result;
  t.equal(alone.ticks, 100);
  t.notOk('stopped' in alone);
});
