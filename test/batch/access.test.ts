// decisions §8: each item's permission and turn are checked as if it came alone, and one refusal
// refuses the whole batch, naming the item.
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { TINY_GAME, until } from '../helpers/bridge.ts';
import { agent, startAgents } from '../multi-agent/helpers.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

t.test('403 for an item the caller may not run, 409 for an item out of turn; nothing runs', async (t) => {
  const { as } = await startAgents(t, {
    scenario: 'pvp',
    turn_based: true,
    turn_order: ['athena', 'ares'],
    agents: [
      agent('athena', 'faction_player', { kingdom_claim: 'auto:0' }),
      agent('ares', 'faction_player', { kingdom_claim: 'auto:1' }),
      agent('zeus', 'god'),
    ],
  });
  const population = async () => (await as('zeus', 'get_world_state')).body.result.population_alive as number;
  const before = await population();
  const denied = await as('athena', 'batch', {
    commands: [
      { name: 'get_tile', args: { x: 1, y: 1 } },
      { name: 'invoke_power', args: { power_id: 'rain', x: 5, y: 5 } },
    ],
  });
  t.equal(denied.status, 403);
  t.equal(denied.body.error.code, 'PERMISSION_DENIED');
  t.match(denied.body.error.message, /^commands\[1\]: agent 'athena' \(role faction_player\) lacks the action_global permission that 'invoke_power' needs/);

  const reads = await as('ares', 'batch', { commands: [{ name: 'get_tile', args: { x: 1, y: 1 } }, { name: 'list_kingdoms' }] });
  t.equal(reads.status, 200, 'reads are not turn-gated, in a batch or alone');
  const outOfTurn = await as('ares', 'batch', {
    commands: [
      { name: 'get_tile', args: { x: 1, y: 1 } },
      { name: 'spawn', args: { entity_id: 'human', x: 50, y: 50, count: 5 } },
    ],
  });
  t.equal(outOfTurn.status, 409);
  t.equal(outOfTurn.body.error.code, 'TURN_NOT_YOURS');
  t.match(outOfTurn.body.error.message, /^commands\[1\]: it is athena's turn; 'spawn' waits for your turn/);
  t.equal(await population(), before, 'no refused batch touched the world');
});

t.test('a refused batch is refused before admission: 403 and 409 while the only slot is busy, not 503', async (t) => {
  // One slot, held 1.5 s by the god's pause (the tiny game stalls in it); a 300 ms admission wait.
  const counters = new SharedArrayBuffer(32);
  const pauses = () => Atomics.load(new Int32Array(counters), COUNTER.pause);
  const { as } = await startAgents(
    t,
    {
      turn_based: true,
      turn_order: ['p1', 'p2'],
      agents: [agent('p1', 'faction_player'), agent('p2', 'faction_player'), agent('watcher', 'observer'), agent('zeus', 'god')],
    },
    { game: TINY_GAME, gameOptions: { counters, stallOnPauseMs: 1500 }, timings: { admissionWaitMs: 300 }, config: { maxConcurrent: 1 } },
  );
  const holder = as('zeus', 'pause');
  await until(() => pauses() === 1, 10_000, "the god's pause to start");

  const denied = await as('watcher', 'batch', { commands: [{ name: 'get_world_state' }, { name: 'pause' }] });
  t.equal(denied.status, 403, `403 at once, not a wait for the slot (got ${denied.status} ${denied.body.error?.code})`);
  t.match(denied.body.error.message, /^commands\[1\]: agent 'watcher' \(role observer\) lacks the advance_time permission that 'pause' needs/);

  const outOfTurn = await as('p2', 'batch', { commands: [{ name: 'get_world_state' }, { name: 'resume' }] });
  t.equal(outOfTurn.status, 409, `409 at once, not a wait for the slot (got ${outOfTurn.status} ${outOfTurn.body.error?.code})`);
  t.match(outOfTurn.body.error.message, /^commands\[1\]: it is p1's turn; 'resume' waits for your turn/);

  const allowed = await as('p1', 'batch', { commands: [{ name: 'get_world_state' }] });
  t.equal(allowed.status, 503, 'an allowed batch does wait for the slot, and gets BUSY after the wait');
  t.equal(allowed.body.error.code, 'BUSY');

  t.equal((await holder).status, 200);
  t.equal(pauses(), 1, 'only the god paused');
  const served = await as('p1', 'batch', { commands: [{ name: 'get_world_state' }, { name: 'resume' }] });
  t.equal(served.status, 200, 'the turn holder runs it once the slot is free');
  t.equal(served.body.result.completed, 2);
});
