// decisions §13 over real HTTP: a batch keeps the turn (turn_timeout_s) only when a turn-gated item
// of it ran in the game and succeeded. A batch that answers 200 with its spawn skipped after a
// failed read keeps nothing; the same two items the other way round (the spawn runs first) keep it.
import t from 'tap';
import { agent, startAgents, type Agents } from './helpers.ts';

t.setTimeout(120_000);

// 3 s: wide enough that a batch and a session_info every 0.6 s fit on a loaded machine.
const TIMEOUT_S = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const spawn = { name: 'spawn', args: { entity_id: 'sheep', x: 10, y: 10 } };
const outOfBounds = { name: 'get_tile', args: { x: 100_000, y: 1 } };

const holder = async (ma: Agents): Promise<string> => (await ma.as('dm', 'session_info')).body.result.current_turn as string;

/** Runs `step` every ~0.6 s until the turn leaves `from` or `maxS` pass; the seconds from `since` to the poll that saw it gone, or null. */
async function lostAfter(ma: Agents, from: string, since: number, maxS: number, step: () => Promise<void>): Promise<number | null> {
  while (Date.now() - since < maxS * 1000) {
    await step();
    if ((await holder(ma)) !== from) return (Date.now() - since) / 1000;
    await sleep(600);
  }
  return null;
}

/**
 * Hands the turn to `id` afresh (at least one turn_advance). Returns the time just before the
 * turn_advance that handed it over: its timer cannot have started earlier.
 */
async function turnTo(ma: Agents, id: string): Promise<number> {
  let sent: number;
  do {
    sent = Date.now();
    await ma.as('dm', 'turn_advance');
  } while ((await holder(ma)) !== id);
  return sent;
}

t.test('a batch whose gated item failed or was skipped does not keep the turn; one whose spawn ran does', async (t) => {
  const ma = await startAgents(t, {
    turn_based: true,
    turn_timeout_s: TIMEOUT_S,
    turn_order: ['p1', 'p2'],
    agents: [agent('dm', 'god'), agent('p1', 'faction_player'), agent('p2', 'faction_player')],
  });
  // Warm the game thread up first: the timings below should measure turns, not a cold start.
  t.equal((await ma.as('dm', 'spawn', spawn.args)).status, 200);

  // The failed read stops the batch before its spawn: 200, completed 0, failed 1, skipped 1.
  const answers: Array<{ status: number; result: unknown }> = [];
  const started = await turnTo(ma, 'p1');
  const lost = await lostAfter(ma, 'p1', started, 6 * TIMEOUT_S, async () => {
    const answer = await ma.as('p1', 'batch', { commands: [outOfBounds, spawn] });
    answers.push({ status: answer.status, result: answer.body.result });
  });
  t.ok(lost !== null, `the holder sending only skipped spawns lost the turn (${lost} s after it started, timeout ${TIMEOUT_S} s)`);
  t.ok(lost === null || lost >= TIMEOUT_S * 0.9, 'not before the timeout');
  t.ok(answers.length >= 3, `it sent a batch every ~0.6 s meanwhile (${answers.length})`);
  // The last one may come after the turn passed (409): every earlier one ran and answered 200.
  for (const answer of answers.slice(0, -1)) {
    t.match(answer, {
      status: 200,
      result: { completed: 0, failed: 1, skipped: 1, results: [{ ok: false, error: { code: 'OUT_OF_BOUNDS' } }, { skipped: true }] },
    });
  }
  t.equal(await holder(ma), 'p2');

  // The same items the other way round: the spawn runs and succeeds before the read fails.
  const statuses: number[] = [];
  const holders: string[] = [];
  const end = (await turnTo(ma, 'p2')) + 2 * TIMEOUT_S * 1000;
  while (Date.now() < end) {
    const answer = await ma.as('p2', 'batch', { commands: [spawn, outOfBounds] });
    statuses.push(answer.status);
    t.match(answer.body.result, { completed: 1, failed: 1, skipped: 0 });
    holders.push(await holder(ma));
    await sleep(600);
  }
  t.same([...new Set(statuses)], [200]);
  t.same([...new Set(holders)], ['p2'], `a batch whose spawn ran keeps the turn past the timeout (${holders.length} batches in ${2 * TIMEOUT_S} s)`);
});
