// decisions §12 on the built-in sandbox: two lockstep bridges of one seed, given the same commands,
// agree on world_hash after every step whatever reads one of them answers in between, and another
// seed gives another hash; fog holds under lockstep; load_world drops the savepoints of the world it
// replaces; the first world's savepoint answers the bytes it holds.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { agent, startAgents } from '../multi-agent/helpers.ts';

t.setTimeout(240_000);

/** A lockstep sandbox whose first world has `seed` ([Game] seed). */
async function lockstepSandbox(t: Test, seed: number): Promise<TestBridge & { ok(name: string, args?: unknown): Promise<any> }> {
  const dir = tempDir('gcb-research-sandbox-');
  writeConfig(dir, { clock: 'lockstep' });
  const path = join(dir, 'bridge.toml');
  writeFileSync(path, readFileSync(path, 'utf8').replace('[Game]\n', `[Game]\nseed = ${seed}\n`));
  const b = await startTestBridge(t, { game: SANDBOX_GAME, configDir: dir });
  return Object.assign(b, {
    async ok(name: string, args?: unknown) {
      const answer = await b.cmd(name, args);
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.result;
    },
  });
}

t.test('one seed, the same commands: the same hash after every step, reads or none; another seed, another hash', async (t) => {
  const [a, b] = await Promise.all([lockstepSandbox(t, 1234), lockstepSandbox(t, 1234)]);
  t.equal((await a.ok('world_hash')).hash, (await b.ok('world_hash')).hash, 'the first worlds agree');
  const actor = (await a.ok('list_actors')).items.find((item: { id: string }) => item.id === 'human').id;
  const power = (await a.ok('list_powers')).items.find((p: { is_toggle?: boolean }) => !p.is_toggle).id;
  const tile = (await a.ok('list_tiles')).items[0].id;
  const plan: Array<[string, Record<string, unknown>]> = [
    ['spawn', { entity_id: actor, x: 100, y: 100, count: 10, adult: true }],
    ['step', { ticks: 30 }],
    ['paint_tile', { x: 50, y: 50, tile_id: tile, radius: 3 }],
    ['invoke_power', { power_id: power, x: 120, y: 120 }],
    ['step', { ticks: 30 }],
    ['spawn', { entity_id: actor, x: 30, y: 200, count: 5 }],
    ['step', { ticks: 60 }],
  ];
  for (const [name, args] of plan) {
    const left = await a.cmd(name, args);
    // Reads on one side only: they must change nothing.
    await a.ok('get_world_state');
    await a.ok('query_actors', { limit: 50 });
    await a.ok('recv_events', {});
    const right = await b.cmd(name, args);
    t.equal(left.status, right.status, `${name}: the same answer status`);
    if (name === 'step') t.equal(left.body.result.hash, right.body.result.hash, `after step to tick ${left.body.result.tick}: the same hash`);
  }
  t.same(await a.ok('world_hash'), await b.ok('world_hash'));
  await Promise.all([a.bridge.close(), b.bridge.close()]);

  const [seeded, other] = await Promise.all([lockstepSandbox(t, 1234), lockstepSandbox(t, 99)]);
  const [one, two] = [await seeded.ok('world_hash'), await other.ok('world_hash')];
  t.equal(two.tick, 0);
  t.not(two.hash, one.hash, 'another seed: another hash at tick 0');
});

t.test('fog holds under lockstep: a faction player under partial_intel reads its own kingdom only', async (t) => {
  const ma = await startAgents(
    t,
    { scenario: 'pvp', partial_intel: true, agents: [agent('dm', 'god'), agent('p1', 'faction_player', { kingdom_claim: 'auto:0' })] },
    { config: { clock: 'lockstep' } },
  );
  await ma.as('dm', 'step', { ticks: 20 });
  const claim = (await ma.as('p1', 'whoami')).body.result.claimed_kingdom_id;
  t.type(claim, 'number');
  const all = (await ma.as('dm', 'query_actors', { limit: 5000 })).body.result.items as Array<{ kingdom_id: number | null }>;
  t.ok(
    all.some((row) => row.kingdom_id !== claim),
    'the god sees other kingdoms',
  );
  const own = (await ma.as('p1', 'query_actors', { limit: 5000 })).body.result.items as Array<{ kingdom_id: number | null }>;
  t.ok(own.length > 0);
  t.ok(
    own.every((row) => row.kingdom_id === claim),
    'the player sees its own kingdom alone',
  );
  const stepped = await ma.as('p1', 'step', { ticks: 1 });
  t.equal(stepped.status, 200);
  t.notOk('hash' in stepped.body.result, 'and no hash of the whole world');
});

t.test('load_world drops the savepoints of the world it replaces; a savepoint says what it holds', async (t) => {
  const dir = tempDir('gcb-research-sandbox-');
  writeConfig(dir, { clock: 'lockstep' });
  const b = await startTestBridge(t, { game: SANDBOX_GAME, configDir: dir });
  t.equal((await b.cmd('save_world', { folder: 'research' })).status, 200);
  const saved = (await b.cmd('savepoint')).body.result;
  t.ok(saved.bytes > 256 * 256, `a 256×256 world's savepoint holds ${saved.bytes} bytes`);
  t.equal((await b.cmd('load_world', { path: 'research' })).status, 200);
  const refused = await b.cmd('rewind', { id: saved.id });
  t.equal(refused.status, 422);
  t.match(refused.body.error.message, /no savepoint 1 \(known savepoints: none\)/);
});
