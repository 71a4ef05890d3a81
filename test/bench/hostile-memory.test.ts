// bench/scenarios/hostile-memory.ts: its row is ok only when every part of the goal holds (RSS,
// polite p99, no failed polite request, the bridge up and not crashed, the attack landed); its
// bulky args are made of pieces an audit record keeps whole; its RSS probe reads /proc.
import t from 'tap';
import { formatTable } from '../../bench/lib/report.ts';
import { attackRow, bulkyArgs, vmRssBytes, type Outcome } from '../../bench/scenarios/hostile-memory.ts';

const FRAME_MS = 1000 / 60;

const healthy: Outcome = {
  idleMb: 140,
  peakMb: 200,
  growthMb: 60,
  polite: { latencies: [2, 3, 4], failed: 0, statuses: { 200: 3 } },
  p50: 3,
  p99: 2 * FRAME_MS,
  hostile: { rps: 100, total: 500, p50: 5, p99: 9, max: 12, errors: 0, timeouts: 0, non2xx: 500, statusCodes: { 404: 500 } },
  up: true,
  exit: null,
  cappedAfterS: null,
  prepared: '',
  freshBridge: false,
  expect: 404,
};

t.test('a bounded, responsive, living bridge is ok', async (t) => {
  const row = attackRow('unknown commands', healthy);
  t.equal(row.ok, true);
  t.equal(row.scenario, 'hostile memory: unknown commands');
  t.equal(row.value, 60);
  t.match(row.note, /polite p99 2\.00 frames/);
});

t.test('each part of the goal missed makes the row a MISS', async (t) => {
  const misses: Array<[string, Partial<Outcome>, RegExp]> = [
    ['RSS over 150 MB', { growthMb: 151, peakMb: 291 }, /RSS 140 → 291 MB/],
    ['polite p99 over 3 frames', { p99: 3 * FRAME_MS + 0.1 }, /polite p99 3\.01 frames/],
    ['a polite request failed', { polite: { latencies: [2], failed: 1, statuses: { 200: 1, 503: 1 } } }, /1 failed/],
    ['no polite request answered', { polite: { latencies: [], failed: 0, statuses: {} }, p50: NaN, p99: NaN }, /0 whoami/],
    ['the bridge crashed', { exit: 'SIGABRT', up: false }, /the bridge crashed \(exit SIGABRT\)/],
    ['the bridge was gone before the attack', { exit: 'SIGKILL', up: false, idleMb: NaN, peakMb: NaN, growthMb: NaN }, /no RSS read \(the bridge was gone\)/],
    ['no /health answer after', { up: false }, /did not answer \/health/],
    ['the attack did not land', { hostile: { ...healthy.hostile, statusCodes: { 400: 500 } } as Outcome['hostile'] }, /none got 404: the attack did not land/],
    ['the load generator failed', { hostile: { error: 'load generator exited 1' } }, /hostile load failed/],
  ];
  for (const [what, change, note] of misses) {
    const row = attackRow('x', { ...healthy, ...change });
    t.equal(row.ok, false, what);
    t.match(row.note, note, `${what}: the note says so`);
    t.match(formatTable([row]), /MISS/, `${what}: the table marks it`);
  }
});

t.test('an attack stopped at the RSS cap, or run on a fresh bridge, says so', async (t) => {
  const row = attackRow('x', { ...healthy, growthMb: 1400, peakMb: 1540, cappedAfterS: 3.25, freshBridge: true });
  t.equal(row.ok, false);
  t.match(row.note, /stopped at the 1\.5 GB cap after 3\.3 s/);
  t.match(row.note, /on a fresh bridge/);
});

t.test('bulky args fill the body yet every piece is small enough to be kept whole', async (t) => {
  const budget = 1024 * 1024 - 1024;
  const args = bulkyArgs(budget);
  const body = JSON.stringify({ name: 'no_such_command', args });
  t.ok(body.length <= budget, `${body.length} bytes within ${budget}`);
  t.ok(body.length >= 0.95 * budget, `${body.length} bytes fill most of ${budget}`);
  const outer = Object.values(args);
  const lists = outer.flatMap((inner) => Object.values(inner));
  const strings = lists.flat();
  t.ok(outer.length <= 32, 'at most 32 keys at the top');
  t.ok(Math.max(...outer.map((inner) => Object.keys(inner).length)) <= 32, 'at most 32 keys an object');
  t.ok(Math.max(...lists.map((list) => list.length)) <= 16, 'at most 16 items a list');
  t.ok(Math.max(...strings.map((s) => s.length)) <= 128, 'at most 128 characters a string');
  t.ok(strings.length > 7000, `${strings.length} strings`);
  t.equal(new Set(strings).size, strings.length, 'every string distinct');
});

t.test('VmRSS of a living process, null for one that is gone', async (t) => {
  const rss = vmRssBytes(process.pid);
  t.ok(rss !== null && rss > 10 * 2 ** 20, `${rss} bytes`);
  t.equal(vmRssBytes(2 ** 22 + 12345), null);
  t.equal(vmRssBytes(undefined), null);
});
