// GET /metrics (decisions §9): the Prometheus text of prom-client with every series the decisions
// name, behind a read_all credential, holding no admission slot (it answers while the bridge is
// saturated); labels carry what the bridge chose, never a token or a client's string.
import t from 'tap';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';

const NAMES = [
  'gcb_requests_total',
  'gcb_request_duration_seconds',
  'gcb_admission_wait_seconds',
  'gcb_queue_wait_seconds',
  'gcb_slots_in_use',
  'gcb_slots_max',
  'gcb_queue_depth',
  'gcb_frame_duration_seconds',
  'gcb_frame_items',
  'gcb_tick',
  'gcb_events_total',
  'gcb_event_streams',
  'gcb_events_dropped_total',
  'gcb_idempotent_replays_total',
];

/** `name{labels} value` lines as a map, for lookups by exact series. */
function series(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    map.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return map;
}

const dir = tempDir('gcb-metrics-');
writeConfig(dir, { maxConcurrent: 1 });
const b = await startTestBridge(t, { configDir: dir, gameOptions: { stallOnPauseMs: 1500 }, timings: { admissionWaitMs: 3000 } });

t.test('every series of decisions §9, in the Prometheus text format', async (t) => {
  t.equal((await b.cmd('get_world_state')).status, 200);
  await b.fetch('/health');
  await b.fetch('/cmd', { method: 'POST', headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{"name":"health"}' });
  await b.fetch('/secret-looking/path');
  await b.cmd('no_such_command_xyz');
  const res = await b.fetch('/metrics');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.equal(res.headers.get('cache-control'), 'no-store');
  const text = await res.text();
  for (const name of NAMES) t.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
  t.match(text, /^# TYPE process_cpu_seconds_total counter/m, "prom-client's process defaults");
  t.match(text, /^# TYPE nodejs_eventloop_lag_seconds gauge/m, "and Node.js's");
  t.notMatch(text, /gcb_agent_requests_total/, 'per-agent series only in multi-agent mode');
  const s = series(text);
  t.ok(s.get('gcb_requests_total{endpoint="/cmd",command="get_world_state",code="OK"}')! >= 1);
  t.equal(s.get('gcb_requests_total{endpoint="/cmd",command="",code="UNAUTHORIZED"}'), 1, 'a 401 is counted');
  t.equal(s.get('gcb_requests_total{endpoint="other",command="other",code="UNKNOWN_COMMAND"}'), 1, 'an unknown path is "other"');
  t.equal(s.get('gcb_requests_total{endpoint="/cmd",command="",code="UNKNOWN_COMMAND"}'), 1, 'an unknown name is not a label');
  t.notMatch(text, /secret-looking|no_such_command_xyz|wrong/, 'no client string in a label');
  t.notMatch(text, new RegExp(b.token), 'no token');
  t.ok(s.get('gcb_queue_wait_seconds_count')! >= 1, 'the queue wait of get_world_state');
  t.ok(s.get('gcb_queue_wait_seconds_bucket{le="60"}')! >= 1);
  t.ok(s.get('gcb_frame_duration_seconds_count')! >= 1, 'frames');
  t.ok(s.get('gcb_frame_items_sum')! >= 1, 'frame items');
  t.equal(s.get('gcb_slots_max'), 1);
  t.ok(s.get('gcb_tick')! > 0);
  t.ok(s.get('gcb_admission_wait_seconds_count')! >= 2, '/health and the command waited for a slot');
  t.ok(s.get('gcb_events_total{kind="world_generated"}')! >= 1);
});

t.test('a credential is needed (401), and the kill switch does not stop it', async (t) => {
  const res = await b.fetch('/metrics', { auth: false });
  t.equal(res.status, 401);
  t.equal(((await res.json()) as any).error.code, 'UNAUTHORIZED');
});

t.test('no admission slot: /metrics answers while the only slot is held', async (t) => {
  let stalled = true;
  const stall = b.cmd('pause').finally(() => (stalled = false)); // holds the one slot for 1.5 s inside the game thread
  await until(() => b.bridge.stats().slotsInUse === 1, 10_000, 'the pause to hold the slot');
  const waiting = b.cmd('get_world_state'); // waits for the slot
  await until(() => b.bridge.stats().waiting === 1, 10_000, 'get_world_state to wait');
  const res = await b.fetch('/metrics');
  t.equal(res.status, 200);
  // Judged by order, not by a clock: behind the admission queue it would come after the pause.
  t.ok(stalled, 'answered while saturated, before the slot holder');
  const s = series(await res.text());
  t.equal(s.get('gcb_slots_in_use'), 1);
  t.equal((await stall).status, 200);
  t.equal((await waiting).status, 200);
  await b.cmd('resume');
});
