// decisions §10 over real HTTP: while a greedy agent keeps 8× the slots' worth of requests
// outstanding, a polite agent sending one at a time waits for about one round of slots, not behind
// the greedy queue, and the greedy agent gets every slot the polite one leaves. The figures are in
// the frame model's units, not wall-clock time: in that model every slot completes one request a
// frame, so the greedy answers that arrive while a polite request is out, divided by the slots, are
// the frames it took. A loaded machine slows both sides together.
import t from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, startAgents } from '../multi-agent/helpers.ts';

t.setTimeout(120_000);

const SLOTS = 4;

t.test('fair admission: the polite agent overtakes the greedy queue; no slot idles while greedy waits', async (t) => {
  const ma = await startAgents(
    t,
    { agents: [agent('greedy', 'observer'), agent('polite', 'observer')] },
    { game: TINY_GAME, config: { maxConcurrent: SLOTS, fps: 20 } },
  );
  let running = true;
  let greedyDone = 0;
  let greedyBusy = 0;
  let greedyDropped = 0;
  const greedy = Array.from({ length: 8 * SLOTS }, async () => {
    while (running) {
      // A connection the loaded machine resets (seen once: connect ECONNRESET at load average 30)
      // is the client's loss, not admission's: counted and retried, so it cannot end the process.
      const answer = await ma.as('greedy', 'get_world_state').catch(() => null);
      if (answer === null) greedyDropped++;
      else if (answer.status === 200) greedyDone++;
      else greedyBusy++;
    }
  });
  // Sampling the admission state: while anyone waits, every slot must be held.
  let samples = 0;
  let idleWhileWaiting = 0;
  let waitingSeen = 0;
  const sampler = setInterval(() => {
    const stats = ma.b.bridge.stats();
    samples++;
    waitingSeen = Math.max(waitingSeen, stats.waiting);
    if (stats.waiting > 0 && stats.slotsInUse < SLOTS) idleWhileWaiting++;
  }, 7);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the greedy queue fills

  const politeModelFrames: number[] = [];
  for (let i = 0; i < 15; i++) {
    const before = greedyDone;
    const answer = await ma.as('polite', 'get_world_state');
    t.equal(answer.status, 200);
    politeModelFrames.push((greedyDone - before) / SLOTS);
  }
  clearInterval(sampler);
  running = false;
  await Promise.all(greedy);

  politeModelFrames.sort((a, b) => a - b);
  const p50 = politeModelFrames[Math.floor(politeModelFrames.length / 2)]!;
  // The tail is the machine's (a test process stalled for a moment lets greedy answers pile up
  // while one polite answer waits unread): judge all but the two worst samples. FIFO puts every
  // sample at 7 or more, so this still fails a FIFO queue.
  const p80 = politeModelFrames[politeModelFrames.length - 3]!;
  t.ok(waitingSeen >= 2 * SLOTS, `the greedy agent really kept a queue (${waitingSeen} waiting seen)`);
  t.equal(greedyBusy, 0, 'no greedy request waited the 5 s to BUSY');
  t.ok(greedyDropped <= 4, `greedy connections lost on the way: ${greedyDropped}`);
  // FIFO puts each polite request behind 28 greedy waiters: measured 7.5 to 8 model frames. Fair:
  // one round of slots, plus the answers the client meets on the way (about 2 to 4 measured).
  t.ok(p50 <= 4, `polite p50 ${p50} model frames (each: ${politeModelFrames.join(' ')}); FIFO measures ≥ 7`);
  t.ok(p80 <= 6, `polite p80 ${p80} model frames (worst ${politeModelFrames.at(-1)})`);
  t.equal(idleWhileWaiting, 0, `no slot idle while a request waited (${samples} samples): greedy gets all the polite one leaves`);
});
