// decisions §11: turn_timeout_s over real HTTP. Only a gated command (action or control, or a batch
// whose gated item ran) of the holder that answers 200 keeps the turn; reads, 404s, 400s and failures do not.
import t from 'tap';
import { agent, startAgents, type Agents } from './helpers.ts';

t.setTimeout(120_000);

// 3 s: wide enough that a spawn and a session_info every 0.6 s fit on a loaded machine.
const TIMEOUT_S = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `step` every ~0.6 s for `ms`; returns the holders seen after each step. */
async function every600(ms: number, step: (i: number) => Promise<void>, ma: Agents): Promise<string[]> {
  const holders: string[] = [];
  const end = Date.now() + ms;
  for (let i = 0; Date.now() < end; i++) {
    await step(i);
    holders.push((await ma.as('dm', 'session_info')).body.result.current_turn);
    await sleep(600);
  }
  return holders;
}

/**
 * Polls until the turn leaves `from`; returns the seconds from `since` (when the holder's last
 * action was sent: its timer cannot have started before) to the poll that saw it gone, or null
 * after `maxS`.
 */
async function lostAfter(ma: Agents, from: string, since: number, maxS: number, step: (i: number) => Promise<void>): Promise<number | null> {
  const t0 = Date.now();
  for (let i = 0; Date.now() - t0 < maxS * 1000; i++) {
    await step(i);
    if ((await ma.as('dm', 'session_info')).body.result.current_turn !== from) return (Date.now() - since) / 1000;
    await sleep(600);
  }
  return null;
}

t.test('turn_timeout_s: actions keep the turn; reads, 404s, 400s and failures do not', async (t) => {
  const ma = await startAgents(t, {
    turn_based: true,
    turn_timeout_s: TIMEOUT_S,
    turn_order: ['p1', 'p2'],
    agents: [agent('dm', 'god'), agent('p1', 'faction_player'), agent('p2', 'faction_player')],
  });
  const spawn = { entity_id: 'sheep', x: 10, y: 10 };
  // Warm the game thread up, then hand the turn to p1 afresh: the timer runs from the start. At
  // least one turn_advance even when p1 holds it already: its timer has run since the bridge
  // started, which on a loaded machine can be most of the 3 s (p1's first spawn was once 409).
  t.equal((await ma.as('dm', 'spawn', spawn)).status, 200);
  do await ma.as('dm', 'turn_advance');
  while ((await ma.as('dm', 'session_info')).body.result.current_turn !== 'p1');

  // A holder that spawns every ~0.6 s keeps its turn well past the timeout.
  const statuses: number[] = [];
  let lastAct = 0;
  const kept = await every600(
    2 * TIMEOUT_S * 1000,
    async () => {
      lastAct = Date.now();
      statuses.push((await ma.as('p1', 'spawn', spawn)).status);
    },
    ma,
  );
  t.same([...new Set(statuses)], [200], 'every spawn answered 200');
  t.same([...new Set(kept)], ['p1'], 'acting every 0.6 s keeps the turn');

  // Then only reads, unknown commands (404), bad args (400) and a game-side failure: the turn goes.
  const codes: number[] = [];
  const noise = [
    () => ma.as('p1', 'get_world_state'),
    () => ma.as('p1', 'no_such_command'),
    () => ma.as('p1', 'spawn', { entity_id: 'sheep', x: -1, y: 10 }),
    () => ma.as('p1', 'spawn', { entity_id: 'no_such_actor', x: 10, y: 10 }),
  ];
  // Measured from the last spawn, not from the first poll: every600 ends with a session_info and a
  // sleep after that spawn, which on a loaded machine can eat much of the timeout.
  const lost = await lostAfter(ma, 'p1', lastAct, 6 * TIMEOUT_S, async (i) => void codes.push((await noise[i % noise.length]!()).status));
  t.ok(lost !== null, `the polling holder lost the turn (${lost} s after its last spawn)`);
  t.ok(lost === null || lost >= TIMEOUT_S * 0.9, 'not before the timeout');
  t.ok(codes.includes(200) && codes.includes(404) && codes.includes(400), `reads, 404s and 400s were among them (${codes.join(' ')})`);
  t.equal((await ma.as('dm', 'session_info')).body.result.current_turn, 'p2');
  t.equal((await ma.as('p1', 'spawn', spawn)).status, 409, 'p1 now waits');

  // A batch holding a gated item keeps the turn; a batch of reads only does not.
  const batchStatuses: number[] = [];
  const batchKept = await every600(
    1.5 * TIMEOUT_S * 1000,
    async () => {
      lastAct = Date.now();
      batchStatuses.push((await ma.as('p2', 'batch', { commands: [{ name: 'get_world_state' }, { name: 'spawn', args: spawn }] })).status);
    },
    ma,
  );
  t.same([...new Set(batchStatuses)], [200]);
  t.same([...new Set(batchKept)], ['p2'], 'a batch with a spawn in it keeps the turn');
  const readsOnly = await lostAfter(ma, 'p2', lastAct, 6 * TIMEOUT_S, async () => {
    t.equal((await ma.as('p2', 'batch', { commands: [{ name: 'get_world_state' }, { name: 'list_kingdoms' }] })).status, 200);
  });
  t.ok(readsOnly !== null && readsOnly >= TIMEOUT_S * 0.9, `a batch of reads only does not keep it (lost ${readsOnly} s after the last spawn)`);
});
