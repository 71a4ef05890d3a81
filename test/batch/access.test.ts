// decisions §8: each item's permission and turn are checked as if it came alone, and one refusal
// refuses the whole batch, naming the item.
import t from 'tap';
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
