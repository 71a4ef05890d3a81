// decisions §12 with several agents: a faction player may step (it holds advance_time) but gets no
// hash, and may not world_hash, savepoint, rewind, savepoint_drop or record (PERMISSION_DENIED); an observer
// may world_hash but not step; in a turn-based session a step by a player without the turn is
// TURN_NOT_YOURS; and the audit record of every command that ran in the world carries its place.
import t from 'tap';
import { agent, startAgents } from '../multi-agent/helpers.ts';
import { RESEARCH_GAME } from './helpers.ts';

// Real bridges, several per file, on a loaded machine.
t.setTimeout(180_000);

t.test('who may step, hash and keep savepoints', async (t) => {
  const ma = await startAgents(
    t,
    { agents: [agent('dm', 'god'), agent('p1', 'faction_player'), agent('owl', 'observer')] },
    { game: RESEARCH_GAME, config: { clock: 'lockstep' } },
  );
  const step = await ma.as('p1', 'step', { ticks: 2 });
  t.equal(step.status, 200, 'a faction player may step');
  t.same(step.body.result, { tick_before: 0, tick: 2, ticks: 2 }, 'the ticks alone: no hash without read_all');
  for (const [name, args] of [
    ['world_hash', {}],
    ['savepoint', {}],
    ['rewind', { id: 1 }],
    ['savepoint_drop', { id: 1 }],
    ['record_start', { name: 'mine' }],
    ['record_stop', {}],
  ] as const) {
    const denied = await ma.as('p1', name, args);
    t.equal(denied.status, 403, `faction player: ${name}`);
    t.equal(denied.body.error.code, 'PERMISSION_DENIED');
    t.match(denied.body.error.message, name === 'world_hash' ? /read_all/ : /control_world/);
  }
  const observed = await ma.as('owl', 'world_hash');
  t.equal(observed.status, 200, 'an observer holds read_all');
  t.equal(observed.body.result.tick, 2);
  const observerStep = await ma.as('owl', 'step', { ticks: 1 });
  t.equal(observerStep.status, 403);
  t.match(observerStep.body.error.message, /advance_time/);
  const god = await ma.as('dm', 'step', { ticks: 1 });
  t.equal(god.body.result.hash, (await ma.as('dm', 'world_hash')).body.result.hash, 'a god gets the hash');
  t.equal((await ma.as('dm', 'savepoint')).status, 200);
});

t.test('turn-based: a step by a player without the turn is TURN_NOT_YOURS and runs nothing', async (t) => {
  const ma = await startAgents(
    t,
    { turn_based: true, turn_order: ['p1', 'p2'], agents: [agent('dm', 'god'), agent('p1', 'faction_player'), agent('p2', 'faction_player')] },
    { game: RESEARCH_GAME, config: { clock: 'lockstep' } },
  );
  const early = await ma.as('p2', 'step', { ticks: 5 });
  t.equal(early.status, 409);
  t.equal(early.body.error.code, 'TURN_NOT_YOURS');
  t.equal((await ma.as('dm', 'world_hash')).body.result.tick, 0, 'no tick ran');
  t.equal((await ma.as('p1', 'step', { ticks: 5 })).status, 200, 'the holder steps');
  t.equal((await ma.as('p1', 'turn_advance')).status, 200);
  t.equal((await ma.as('p2', 'step', { ticks: 1 })).status, 200, 'then the next player');
  t.equal((await ma.as('dm', 'world_hash')).body.result.tick, 6);
});

t.test('the audit record of a command that ran in the world carries its place (tick, order within the tick)', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god')] }, { game: RESEARCH_GAME, config: { clock: 'lockstep' } });
  await ma.as('dm', 'spawn', { entity_id: 'walker', x: 1, y: 1 });
  await ma.as('dm', 'spawn', { entity_id: 'walker', x: 2, y: 2 });
  await ma.as('dm', 'step', { ticks: 4 });
  await ma.as('dm', 'spawn', { entity_id: 'walker', x: 3, y: 3 });
  // Refusals change nothing and are no records, so they take no place: one on the game thread
  // (400 UNKNOWN_ASSET) and one before it (400 BAD_ARGS).
  t.equal((await ma.as('dm', 'spawn', { entity_id: 'nobody', x: 3, y: 3 })).status, 400);
  t.equal((await ma.as('dm', 'step', { ticks: 0 })).status, 400);
  await ma.as('dm', 'savepoint');
  t.equal((await ma.as('dm', 'rewind', { id: 99 })).status, 422, 'a command the game refused ran: it has its place');
  await ma.as('dm', 'get_world_state'); // a read: no place
  await ma.as('dm', 'spawn', { entity_id: 'walker', x: 4, y: 4 });
  const records = (await ma.as('dm', 'recv_events', { kinds: ['command'] })).body.result.items as Array<Record<string, any>>;
  const shown = records.map((r) => [r.name, r.status, r.place ?? null]);
  t.same(shown, [
    ['spawn', 200, { tick: 0, order: 0 }],
    ['spawn', 200, { tick: 0, order: 1 }],
    ['step', 200, { tick: 0, order: 2 }],
    ['spawn', 200, { tick: 4, order: 0 }],
    ['savepoint', 200, { tick: 4, order: 1 }],
    ['rewind', 422, { tick: 4, order: 2 }],
    ['get_world_state', 200, null],
    ['spawn', 200, { tick: 4, order: 3 }],
  ]);
  t.equal(records[2]!.tick, 4, "the record's own tick is the one its answer left at");
});
