// bench/lib/targets.ts: a request path row is ok only when every part judged against its reference
// holds, and the main-thread and p99 parts go with the bare reference only.
import t from 'tap';
import { judgedAgainst, meets, REQUEST_PATH_TARGETS, targetText } from '../../bench/lib/targets.ts';

const { capabilities, health, whoami } = REQUEST_PATH_TARGETS;

t.test('the request path targets, reference by reference', async (t) => {
  t.same(judgedAgainst(health, 0), { minCpuRatio: 0.75, maxMainThreadCpu: 1.3, maxP99Ms: 2 });
  t.same(judgedAgainst(health, 1), { minCpuRatio: 0.9 }, 'against the logging reference: its CPU ratio alone');
  t.same(judgedAgainst(whoami, 0), { minCpuRatio: 0.75, maxMainThreadCpu: 1.45 });
  t.same(judgedAgainst(whoami, 1), { minCpuRatio: 0.9 });
  t.same(judgedAgainst(capabilities, 0), { minCpuRatio: 0.9 });
  t.same(judgedAgainst(capabilities, 1), {}, 'reported, not judged');
  t.equal(whoami.maxInstructions, 1.25);
});

t.test('each part judged can fail the row alone; a ratio is reference ÷ bridge, higher is better', async (t) => {
  const judged = judgedAgainst(health, 0);
  const good = { cpuRatio: 0.8, mainThreadCpu: 1.2, p99: 1 };
  t.equal(meets(judged, good), true);
  t.equal(meets(judged, { ...good, cpuRatio: 0.74 }), false, 'the bridge costs more than 1/0.75 of the reference');
  t.equal(meets(judged, { ...good, mainThreadCpu: 1.31 }), false, 'main thread');
  t.equal(meets(judged, { ...good, p99: 3 }), false, 'p99');
  t.equal(meets(judged, { ...good, cpuRatio: 0.75, mainThreadCpu: 1.3, p99: 2 }), true, 'the bounds themselves are met');
  t.equal(meets({}, good), undefined, 'nothing judged: no verdict');
});

t.test('the target column says what is judged', async (t) => {
  t.equal(targetText(judgedAgainst(health, 0)), 'CPU/req ≥ 0.75× (reference ÷ bridge), main thread CPU/req ≤ 1.3×, p99 ≤ 2 ms');
  t.equal(targetText(judgedAgainst(capabilities, 1)), '');
});
