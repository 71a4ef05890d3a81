// decisions §12, savepoints over HTTP: savepoint → rewind puts back the hash, the tick and the random
// state (the same commands after a rewind give the same hashes), the rewound event, the limit of
// [Game] max_savepoints (one more: 422 naming it), unknown and dropped ids (422 naming the known ones,
// nothing changed), generate_world dropping them all, and a rewind ending the pulsed runs in flight
// (decisions §15: nothing of the abandoned timeline reaches the rewound world).
import t from 'tap';
import { startResearch, type ResearchBridge } from './helpers.ts';

// Real bridges, several per file, on a loaded machine.
t.setTimeout(180_000);

/** Commands that use the random state every tick: a run of them gives a hash per step. */
async function run(b: ResearchBridge): Promise<string[]> {
  const hashes: string[] = [];
  await b.ok('spawn', { entity_id: 'walker', x: 5, y: 5, count: 3 });
  hashes.push((await b.ok('step', { ticks: 4 })).hash);
  await b.ok('invoke_power', { power_id: 'drop', x: 9, y: 9 });
  hashes.push((await b.ok('step', { ticks: 10 })).hash);
  hashes.push((await b.ok('step', { ticks: 1 })).hash);
  return hashes;
}

t.test('savepoint, run on, rewind: hash, tick and random state come back; the same commands give the same hashes', async (t) => {
  const b = await startResearch(t);
  await b.ok('spawn', { entity_id: 'walker', x: 1, y: 2, count: 2 });
  await b.ok('step', { ticks: 3 });
  const at = await b.ok('world_hash');
  const saved = await b.ok('savepoint', { label: 'after three ticks' });
  t.match(saved, { id: 1, tick: 3, hash: at.hash, label: 'after three ticks' });
  t.ok(saved.bytes > 0, `it reports the memory it holds (${saved.bytes} bytes)`);
  const first = await run(b);
  const rewound = await b.ok('rewind', { id: 1 });
  t.same(rewound, { id: 1, from_tick: 18, tick: 3, hash: at.hash }, 'back exactly: the savepoint’s tick and hash');
  t.same(await b.ok('world_hash'), at);
  const second = await run(b);
  t.same(second, first, 'the same commands after the rewind give the same hash at every step (the random state came back)');
  await b.ok('rewind', { id: 1 });
  t.same(await b.ok('world_hash'), at, 'a savepoint stays for another rewind');
  t.equal((await b.ok('savepoint')).id, 2, 'ids count up');
  t.notOk('label' in (await b.ok('savepoint')), 'no label, none answered');
});

t.test('rewind emits rewound { from_tick, to_tick, id } at the tick it went back to', async (t) => {
  const b = await startResearch(t);
  await b.ok('savepoint');
  await b.ok('step', { ticks: 6 });
  await b.ok('rewind', { id: 1 });
  const [event] = (await b.ok('recv_events', { kinds: ['rewound'] })).items;
  t.match(event, { kind: 'rewound', tick: 0, from_tick: 6, to_tick: 0, id: 1 });
  const caps = (await (await b.fetch('/capabilities')).json()) as any;
  t.ok(caps.event_kinds.includes('rewound'), 'a kind of /capabilities');
});

t.test('rewind ends every pulsed run in flight: nothing of the abandoned timeline reaches the rewound world', async (t) => {
  const b = await startResearch(t);
  await b.ok('savepoint');
  // Under lockstep a pulsed run pulses once a tick of a step: one walker a pulse here.
  const pulsing = b.cmd('invoke_power', { power_id: 'drop', x: 4, y: 4, pulses: 50 });
  const walkers = async () => (await b.ok('get_world_state')).population_alive as number;
  await b.ok('step', { ticks: 5 });
  t.equal(await walkers(), 5, 'five pulses landed');
  const rewound = await b.ok('rewind', { id: 1 });
  t.equal(rewound.tick, 0);
  t.equal(await walkers(), 0, 'the rewound world has none of them');
  await b.ok('step', { ticks: 20 });
  t.equal(await walkers(), 0, 'and the run of the old timeline pulses no more into it');
  const answer = await pulsing;
  t.equal(answer.status, 200);
  t.match(
    answer.body.result,
    { power_id: 'drop', pulses: 50, pulses_applied: 5, stopped: 'world_changed' },
    'it answers what it did, stopped as by a world swap',
  );
  t.equal((await b.ok('world_hash')).tick, 20);
});

t.test('the limit: at max_savepoints, one more is 422 naming the limit and savepoint_drop; a drop makes room', async (t) => {
  const b = await startResearch(t, { config: { maxSavepoints: 2 } });
  await b.ok('savepoint');
  await b.ok('savepoint');
  const refused = await b.cmd('savepoint');
  t.equal(refused.status, 422);
  t.equal(refused.body.error.code, 'GAME_REJECTED');
  t.match(
    refused.body.error.message,
    /2 savepoints are held, the most \[Game\] max_savepoints allows; drop one with savepoint_drop first \(known savepoints: 1, 2\)/,
  );
  t.same(await b.ok('savepoint_drop', { id: 1 }), { id: 1, dropped: true });
  t.equal((await b.ok('savepoint')).id, 3, 'room again; ids are never reused');
});

t.test('the default limit is 16: the 17th savepoint is refused', async (t) => {
  const b = await startResearch(t);
  for (let n = 1; n <= 16; n++) t.equal((await b.ok('savepoint')).id, n);
  const refused = await b.cmd('savepoint');
  t.equal(refused.status, 422);
  t.match(refused.body.error.message, /^16 savepoints are held, the most \[Game\] max_savepoints allows/);
});

t.test('unknown and dropped ids: 422 naming the known ones, and the world is unchanged', async (t) => {
  const b = await startResearch(t);
  await b.ok('savepoint');
  await b.ok('savepoint');
  await b.ok('step', { ticks: 2 });
  const before = await b.ok('world_hash');
  const unknown = await b.cmd('rewind', { id: 9 });
  t.equal(unknown.status, 422);
  t.equal(unknown.body.error.code, 'GAME_REJECTED');
  t.match(unknown.body.error.message, /^no savepoint 9 \(known savepoints: 1, 2\)/);
  await b.ok('savepoint_drop', { id: 2 });
  const dropped = await b.cmd('rewind', { id: 2 });
  t.equal(dropped.status, 422);
  t.match(dropped.body.error.message, /^no savepoint 2 \(known savepoints: 1\)/);
  const dropAgain = await b.cmd('savepoint_drop', { id: 2 });
  t.equal(dropAgain.status, 422);
  t.match(dropAgain.body.error.message, /known savepoints: 1/);
  t.same(await b.ok('world_hash'), before, 'nothing changed');
  for (const args of [{ id: 0 }, { id: -1 }, { id: 1.5 }, {}]) t.equal((await b.cmd('rewind', args)).status, 400, `rewind ${JSON.stringify(args)}`);
  t.equal((await b.cmd('savepoint', { label: 'x'.repeat(65) })).status, 400, 'a label of more than 64 characters');
});

t.test('generate_world drops every savepoint: a different world', async (t) => {
  const b = await startResearch(t);
  await b.ok('savepoint');
  await b.ok('savepoint');
  await b.ok('generate_world', { zone_x: 2, zone_y: 2, seed: 77 });
  const refused = await b.cmd('rewind', { id: 1 });
  t.equal(refused.status, 422);
  t.match(refused.body.error.message, /^no savepoint 1 \(known savepoints: none\); savepoint_drop, generate_world and load_world drop savepoints/);
  t.equal((await b.ok('savepoint')).id, 3, 'ids go on counting');
});
