// `npm run bench:soak [-- --minutes N | --quick] [-- --kill-every S] [-- --json FILE]`: the bridge
// (a child process, the sandbox world) under mixed load at half its measured capacity, with 1% of
// the requests aborted mid-flight, 1% malformed, and a pool worker killed every minute. It samples
// the bridge's heap after a full GC, its open file descriptors and threads (/proc), and its slots,
// and prints each figure beside its target:
//   heap after GC drifts under 10%, handles flat, zero leaked slots, zero unexpected 5xx.
// Bounded: the run lasts --minutes (default 10; --quick is 1), plus at most a minute of set-up and
// drain. Loopback only. It asserts nothing: a miss is marked, and the exit code is 1.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT_DIMENSION, EXIT_SAVE } from '../test/fixtures/hardening-fragile-game.ts';
import { malformedRequests } from '../test/hardening/malformed.ts';
import { startBridgeProcess, type BridgeProcess, type BridgeStatsReply } from './lib/processes.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    quick: { type: 'boolean' },
    'kill-every': { type: 'string' },
    json: { type: 'string' },
  },
});
const MINUTES = values.quick ? 1 : Number(values.minutes ?? 10);
if (!(MINUTES > 0 && MINUTES <= 240)) throw new Error('--minutes must be between 0 and 240');
const KILL_EVERY_S = Number(values['kill-every'] ?? (values.quick ? 20 : 60));
const CAPACITY_S = values.quick ? 5 : 15;
const SAMPLE_S = values.quick ? 5 : 15;
const GC_EVERY_S = values.quick ? 15 : 60;
const SLOTS = 8;
const MAX_IN_FLIGHT = 256; // arrivals beyond it are shed (and counted), so a stall cannot pile up work
const GAME = new URL('../test/fixtures/hardening-fragile-game.ts', import.meta.url).pathname;

const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- The mix --------------------------------------------------------------------------------------

interface Call {
  kind: 'valid' | 'bad' | 'abort' | 'kill';
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: Uint8Array | string;
  contentType?: string | null;
}

const json = (name: string, args?: unknown): Call => ({
  kind: 'valid',
  name,
  method: 'POST',
  path: '/cmd',
  body: JSON.stringify(args === undefined ? { name } : { name, args }),
});
const rnd = (n: number) => Math.floor(Math.random() * n);
const SAVE_NAMES = ['soak-a', 'soak-b'];
let saved = false;
let landTiles = ['grass', 'sand'];

/** The valid part of the mix: 80% reads, 12% pool commands, 8% actions; rare saves, loads, pictures. */
function validCall(): Call {
  const r = Math.random() * 1000;
  if (r < 3) return json('save_world', { folder: SAVE_NAMES[rnd(2)] });
  if (r < 4 && saved) return json('load_world', { path: SAVE_NAMES[rnd(2)] });
  if (r < 7) return json('screenshot', { max_dimension: 128, format: rnd(2) ? 'png' : 'jpg' });
  if (r < 87) {
    const reads = [
      () => json('get_world_state'),
      () => json('get_tile', { x: rnd(256), y: rnd(256) }),
      () => json('get_ui_state'),
      () => json('list_kingdoms'),
      () => json('query_actors', { limit: 50, in_rect: { x: rnd(200), y: rnd(200), w: 56, h: 56 } }),
      () => json('list_cities'),
      () => ({ kind: 'valid' as const, name: 'GET /health', method: 'GET' as const, path: '/health' }),
      () => ({ kind: 'valid' as const, name: 'GET /capabilities', method: 'GET' as const, path: '/capabilities' }),
    ];
    return reads[rnd(reads.length)]!();
  }
  if (r < 207) {
    const pool = [
      () => json('whoami'),
      () => json('session_info'),
      () => json('recv_messages', { max: 20 }),
      () => json('send_message', { to: '*', content: 'soak' }),
      () => json('health'),
    ];
    return pool[rnd(pool.length)]!();
  }
  const actions = [
    () => json('paint_tile', { x: rnd(256), y: rnd(256), tile_id: landTiles[rnd(landTiles.length)], radius: rnd(3) }),
    () => json('spawn', { entity_id: 'sheep', x: rnd(256), y: rnd(256) }),
    () => json('set_speed', { speed_id: ['x1', 'x2', 'x1'][rnd(3)] }),
  ];
  return actions[rnd(actions.length)]!();
}

const corpus = malformedRequests(500, 7);

function nextCall(): Call {
  const r = Math.random();
  if (r < 0.01) {
    const bad = corpus[rnd(corpus.length)]!;
    return { kind: 'bad', name: `bad:${bad.kind}`, method: 'POST', path: '/cmd', body: bad.body, contentType: bad.contentType };
  }
  if (r < 0.02) return { ...validCall(), kind: 'abort' };
  return validCall();
}

// --- Running calls --------------------------------------------------------------------------------

interface Outcome {
  status: number | 'aborted' | 'error';
  code: string | null;
  message: string;
  at: number;
}

const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);
const fiveHundreds: Array<{ name: string; kind: string; status: number; code: string | null; message: string; at: number }> = [];
const unexpected: string[] = [];
const kills: number[] = [];
const t0 = performance.now();
const now = () => (performance.now() - t0) / 1000;

async function perform(bridge: BridgeProcess, call: Call): Promise<Outcome> {
  const headers: Record<string, string> = { authorization: `Bearer ${bridge.token}` };
  const contentType = call.contentType === undefined ? 'application/json' : call.contentType;
  if (call.method === 'POST' && contentType !== null) headers['content-type'] = contentType;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  if (call.kind === 'abort') timer = setTimeout(() => controller.abort(), rnd(30));
  const body = typeof call.body === 'string' ? new TextEncoder().encode(call.body) : call.body;
  try {
    const response = await fetch(`${bridge.url}${call.path}`, { method: call.method, headers, ...(body ? { body } : {}), signal: controller.signal });
    const text = await response.text();
    let parsed: { error?: { code?: string; message?: string } } | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, code: parsed?.error?.code ?? null, message: parsed?.error?.message ?? '', at: now() };
  } catch (err) {
    return { status: (err as Error).name === 'AbortError' ? 'aborted' : 'error', code: null, message: (err as Error).message, at: now() };
  } finally {
    clearTimeout(timer);
  }
}

/** When the last load_world went out: save_world is refused (422) only while a load is under way. */
let lastLoadAt = -Infinity;

function judge(call: Call, outcome: Outcome): void {
  count(`${call.kind} ${outcome.status}${outcome.code ? ` ${outcome.code} ${call.name}` : ''}`);
  if (call.name === 'save_world' && outcome.status === 200) saved = true;
  if (call.name === 'save_world' && outcome.status === 422 && outcome.at - lastLoadAt > 5) {
    unexpected.push(
      `${outcome.at.toFixed(1)} s save_world refused ${(outcome.at - lastLoadAt).toFixed(0)} s after the last load_world began: world_loading is stuck (${outcome.message.slice(0, 80)})`,
    );
    return;
  }
  if (typeof outcome.status === 'number' && outcome.status >= 500) {
    // Every 5xx is classified in the report: the kill's own, its collateral, or unexpected.
    fiveHundreds.push({ name: call.name, kind: call.kind, status: outcome.status, code: outcome.code, message: outcome.message.slice(0, 160), at: outcome.at });
    return;
  }
  const wrong =
    outcome.status === 'error' ||
    (call.kind === 'bad' && !(outcome.status === 400 && outcome.code === 'BAD_ARGS')) ||
    (call.kind === 'kill' && outcome.status !== 'aborted') ||
    (call.kind === 'valid' && outcome.status !== 200 && !(outcome.status === 422 && outcome.code === 'GAME_REJECTED'));
  if (wrong) unexpected.push(`${outcome.at.toFixed(1)} s ${call.kind} ${call.name} → ${outcome.status} ${outcome.code ?? ''} ${outcome.message.slice(0, 120)}`);
}

// --- Samples ---------------------------------------------------------------------------------------

interface Sample {
  t: number;
  rssMB: number;
  heapMB: number;
  gc: boolean;
  fds: number | null;
  threads: number | null;
  slotsInUse: number;
  waiting: number;
  poolThreads: number;
}

const samples: Sample[] = [];

function procCounts(pid: number | undefined): { fds: number | null; threads: number | null } {
  try {
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    const threads = Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
    return { fds, threads };
  } catch {
    return { fds: null, threads: null };
  }
}

async function sample(bridge: BridgeProcess, gc: boolean): Promise<Sample> {
  if (gc) await bridge.request('gc');
  const reply = await bridge.request<BridgeStatsReply>('stats');
  const stats = reply.stats as BridgeStatsReply['stats'] & { poolThreads?: number };
  const s: Sample = {
    t: Math.round(now()),
    rssMB: reply.rss / 2 ** 20,
    heapMB: reply.heap / 2 ** 20,
    gc,
    ...procCounts(bridge.child.pid),
    slotsInUse: stats.slotsInUse,
    waiting: stats.waiting,
    poolThreads: stats.poolThreads ?? 0,
  };
  samples.push(s);
  return s;
}

// --- The run ---------------------------------------------------------------------------------------

const configDir = mkdtempSync(join(tmpdir(), 'gcb-soak-'));
writeFileSync(join(configDir, 'bridge.toml'), `[Bridge]\ntoken = "${'s'.repeat(48)}"\nmax_concurrent_requests = ${SLOTS}\n[Game]\nfps = 60\n`);
log(`${MINUTES} min${values.quick ? ' (quick)' : ''}, a worker killed every ${KILL_EVERY_S} s; config ${configDir}`);
const bridge = await startBridgeProcess({ configDir, game: GAME });
let stopping = false;
process.once('SIGINT', () => {
  stopping = true;
});

// Paint with the land tiles of this game build.
const tiles = await fetch(`${bridge.url}/cmd`, {
  method: 'POST',
  headers: { authorization: `Bearer ${bridge.token}`, 'content-type': 'application/json' },
  body: '{"name":"list_tiles"}',
});
const tileItems = ((await tiles.json()) as { result?: { items?: Array<{ id: string; water?: boolean }> } }).result?.items ?? [];
if (tileItems.length > 0) landTiles = tileItems.filter((tile) => !tile.water).map((tile) => tile.id);

// Warm-up, then the capacity of this machine for the mix: closed loop, one client per slot.
const warmUntil = performance.now() + 5000;
await Promise.all(
  Array.from({ length: SLOTS }, async () => {
    while (performance.now() < warmUntil) await perform(bridge, validCall());
  }),
);
let completed = 0;
const capacityUntil = performance.now() + CAPACITY_S * 1000;
await Promise.all(
  Array.from({ length: SLOTS }, async () => {
    while (performance.now() < capacityUntil) {
      await perform(bridge, validCall());
      completed++;
    }
  }),
);
const capacity = completed / CAPACITY_S;
const rate = capacity / 2;
log(`capacity ${capacity.toFixed(0)} req/s with ${SLOTS} clients; the soak runs open-loop at ${rate.toFixed(0)} req/s`);
// Both ends are sampled idle, past the 5 s keep-alive timeout, so idle sockets are not counted as handles.
const IDLE_MS = 6000;
await sleep(IDLE_MS);
const first = await sample(bridge, true);
log(`start: heap after GC ${first.heapMB.toFixed(1)} MB, RSS ${first.rssMB.toFixed(0)} MB, fds ${first.fds}, threads ${first.threads}`);

// Open loop: arrivals at `rate` whatever the answers, in 10 ms ticks.
let inFlight = 0;
let shed = 0;
let sent = 0;
const runUntil = performance.now() + MINUTES * 60_000;
let credit = 0;
let lastTick = performance.now();
let nextKill = performance.now() + Math.min(KILL_EVERY_S * 1000, (MINUTES * 60_000) / 2);
let nextSample = performance.now() + SAMPLE_S * 1000;
let nextGc = performance.now() + GC_EVERY_S * 1000;
const running = new Set<Promise<void>>();
const launch = (call: Call) => {
  if (inFlight >= MAX_IN_FLIGHT) {
    shed++;
    return;
  }
  inFlight++;
  sent++;
  if (call.name.startsWith('load_world')) lastLoadAt = now();
  const p = perform(bridge, call).then((outcome) => {
    inFlight--;
    judge(call, outcome);
  });
  running.add(p);
  void p.finally(() => running.delete(p));
};
while (!stopping && performance.now() < runUntil) {
  const tick = performance.now();
  credit += ((tick - lastTick) / 1000) * rate;
  lastTick = tick;
  for (; credit >= 1; credit--) launch(nextCall());
  if (tick >= nextKill) {
    nextKill += KILL_EVERY_S * 1000;
    kills.push(now());
    log(`${now().toFixed(0)} s: killing a pool worker`);
    // Alternately: the worker dies inside screenshot (no world state involved) or inside load_world
    // (after it marked the world as loading).
    launch(
      kills.length % 2 === 1
        ? {
            kind: 'kill',
            name: 'screenshot (worker exits)',
            method: 'POST',
            path: '/cmd',
            body: JSON.stringify({ name: 'screenshot', args: { max_dimension: EXIT_DIMENSION } }),
          }
        : {
            kind: 'kill',
            name: 'load_world (worker exits)',
            method: 'POST',
            path: '/cmd',
            body: JSON.stringify({ name: 'load_world', args: { bytes_b64: Buffer.from(EXIT_SAVE, 'latin1').toString('base64') } }),
          },
    );
  }
  if (tick >= nextSample) {
    nextSample += SAMPLE_S * 1000;
    const gc = tick >= nextGc;
    if (gc) nextGc += GC_EVERY_S * 1000;
    const s = await sample(bridge, gc);
    log(
      `${s.t} s: ${sent} sent, ${inFlight} in flight, slots ${s.slotsInUse}, heap ${s.heapMB.toFixed(1)} MB${gc ? ' (after GC)' : ''}, RSS ${s.rssMB.toFixed(0)} MB, fds ${s.fds}, threads ${s.threads}, pool ${s.poolThreads}`,
    );
  }
  await sleep(10);
}

// Drain (bounded), then the final figures.
const drainUntil = performance.now() + 30_000;
while (running.size > 0 && performance.now() < drainUntil) await sleep(50);
await sleep(IDLE_MS);
const last = await sample(bridge, true);
const healthy = await perform(bridge, json('get_world_state'));
await bridge.stop();

// --- Report ----------------------------------------------------------------------------------------

const GRACE_S = 3;
const collateral = fiveHundreds.filter((f) => f.kind !== 'kill' && f.code === 'GAME_CRASH' && kills.some((k) => f.at >= k && f.at <= k + GRACE_S));
const unexpected5xx = fiveHundreds.filter((f) => f.kind !== 'kill' && !collateral.includes(f));
const gcSamples = samples.filter((s) => s.gc);
const heapDrift = (last.heapMB - first.heapMB) / first.heapMB;
const fdsDelta = last.fds !== null && first.fds !== null ? last.fds - first.fds : null;
const threadsDelta = last.threads !== null && first.threads !== null ? last.threads - first.threads : null;
const byKind = (kind: string) => [...tally].filter(([k]) => k.startsWith(`${kind} `)).reduce((n, [, v]) => n + v, 0);
const rows: Array<[string, string, string, boolean]> = [
  ['duration', `${MINUTES} min${values.quick ? ' (quick)' : ''}`, '', true],
  ['capacity (closed loop, 8 clients)', `${capacity.toFixed(0)} req/s`, '', true],
  [
    'offered load (open loop)',
    `${rate.toFixed(0)} req/s, ${sent} requests, ${shed} shed (over ${MAX_IN_FLIGHT} in flight)`,
    'half capacity, < 1% shed',
    shed < sent / 100,
  ],
  ['aborted mid-flight', `${byKind('abort')} (${((100 * byKind('abort')) / Math.max(1, sent)).toFixed(2)}%)`, '1%', true],
  [
    'malformed',
    `${byKind('bad')} (${((100 * byKind('bad')) / Math.max(1, sent)).toFixed(2)}%), all 400 BAD_ARGS: ${unexpected.filter((u) => u.includes(' bad ')).length === 0}`,
    '1%, all 400',
    unexpected.filter((u) => u.includes(' bad ')).length === 0,
  ],
  [
    'pool workers killed',
    `${kills.length} (every ${KILL_EVERY_S} s), pool back to ${last.poolThreads} threads`,
    'replaced',
    last.poolThreads === first.poolThreads,
  ],
  [
    'heap after GC, start → end',
    `${first.heapMB.toFixed(1)} → ${last.heapMB.toFixed(1)} MB (${(heapDrift * 100).toFixed(1)}%)`,
    '< 10% drift',
    heapDrift < 0.1,
  ],
  ['heap after GC, every sample', gcSamples.map((s) => s.heapMB.toFixed(1)).join(' '), '', true],
  ['RSS, start → end (max)', `${first.rssMB.toFixed(0)} → ${last.rssMB.toFixed(0)} MB (${Math.max(...samples.map((s) => s.rssMB)).toFixed(0)})`, '', true],
  ['open fds, start → end (idle)', `${first.fds} → ${last.fds}`, 'flat: no growth', fdsDelta === null || fdsDelta <= 2],
  ['threads, start → end (idle)', `${first.threads} → ${last.threads}`, 'flat', threadsDelta === null || threadsDelta === 0],
  ['slots in use / waiting at the end', `${last.slotsInUse} / ${last.waiting}`, '0 / 0', last.slotsInUse === 0 && last.waiting === 0],
  [
    '5xx: kill requests',
    `${fiveHundreds.filter((f) => f.kind === 'kill').length} GAME_CRASH of ${kills.length}`,
    'one each',
    fiveHundreds.filter((f) => f.kind === 'kill').length === kills.length,
  ],
  ['5xx: collateral of a kill (same worker)', `${collateral.length}`, '', true],
  ['5xx: unexpected', `${unexpected5xx.length}${unexpected5xx.length ? ` ${JSON.stringify(unexpected5xx.slice(0, 5))}` : ''}`, '0', unexpected5xx.length === 0],
  ['other unexpected answers', `${unexpected.length}`, '0', unexpected.length === 0],
  ['the bridge answers after the soak', String(healthy.status), '200', healthy.status === 200],
];
const width = Math.max(...rows.map(([name]) => name.length));
process.stdout.write(`\nsoak on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`);
for (const [name, value, target, ok] of rows)
  process.stdout.write(`${ok ? '  ' : '✗ '}${name.padEnd(width)}  ${value}${target ? `  (target: ${target})` : ''}\n`);
process.stdout.write(`\nanswers by kind and status: ${JSON.stringify(Object.fromEntries([...tally].sort()))}\n`);
if (unexpected.length > 0) process.stdout.write(`\nunexpected answers (first 20):\n  ${unexpected.slice(0, 20).join('\n  ')}\n`);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ minutes: MINUTES, quick: Boolean(values.quick), capacity, rate, sent, shed, kills, samples, tally: Object.fromEntries(tally), fiveHundreds, unexpected, rows }, null, 2)}\n`,
  );
  log(`figures written to ${values.json}`);
}
process.exitCode = rows.every(([, , , ok]) => ok) ? 0 : 1;
