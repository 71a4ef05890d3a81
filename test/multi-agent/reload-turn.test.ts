// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import t from 'tap';
import { agent, eventsOf, startAgents, writeAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('the turn: kept by a staying holder, passed on when the holder is removed', async (t) => {
  const players = ['p1', 'p2', 'p3'].map((id) => agent(id, 'faction_player'));
  const ma = await startAgents(t, { turn_based: true, turn_order: ['p1', 'p2', 'p3'], agents: [agent('dm', 'god'), ...players] });
  await ma.as('p1', 'turn_advance');
  t.equal((await ma.as('dm', 'session_info')).body.result.current_turn, 'p2');

  // Reordered, holder staying: p2 keeps the turn.
  writeAgents(ma.b.configDir, { turn_based: true, turn_order: ['p3', 'p2', 'p1'], agents: [agent('dm', 'god'), ...players] });
  await ma.b.bridge.reloadAgents();
  t.equal((await ma.as('dm', 'session_info')).body.result.current_turn, 'p2', 'a staying holder keeps the turn');

  // Holder removed: the next of the old rotation (p1 after p2 in [p3, p2, p1]) takes it.
  writeAgents(ma.b.configDir, { turn_based: true, turn_order: ['p3', 'p1'], agents: [agent('dm', 'god'), players[0], players[2]] });
  await ma.b.bridge.reloadAgents();
  const info = (await ma.as('dm', 'session_info')).body.result;
  t.equal(info.current_turn, 'p1', 'the turn passes to the next agent, as turn_advance would');
  t.same(info.turn_order, ['p3', 'p1']);
  const changed = await eventsOf(ma, 'turn_changed');
  t.match(changed.at(-1), { previous: 'p2', next: 'p1', forced_by_god: false }, 'turn_changed tells everyone');
  t.equal((await ma.as('p1', 'spawn', { entity_id: 'sheep', x: 10, y: 10 })).status !== 409, true, 'the new holder may act');
  t.equal((await ma.as('p3', 'spawn', { entity_id: 'sheep', x: 10, y: 10 })).status, 409, 'the others wait');
});
