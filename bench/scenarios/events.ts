// Events (decisions §7): 16 SSE subscribers at 5,000 events/s, every event delivered,
// p99 from emit to client ≤ 2 frames, main-thread command throughput ≥ 0.95× the frame model while
// they run; then one subscriber that never reads: closed at its buffer, memory bounded, the others
// unaffected. Loopback only, bounded in time. The game is test/fixtures/event-game.ts, emitting
// `ping` events at a set rate, each stamped with its emit time on a clock shared by processes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startBridgeProcess, type BridgeProcess, type BridgeStatsReply } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const EVENT_GAME = new URL('../../test/fixtures/event-game.ts', import.meta.url).pathname;
const RATE = 5000;
const SUBSCRIBERS = 16;
const FPS = 60;
const SLOTS = 8;
const TOKEN = 'e'.repeat(48);

interface Subscriber {
  /** Per subscriber: first and last n seen, count, and whether every n in between arrived. */
  first: number;
  last: number;
  count: number;
  missing: number;
  latencies: number[];
  recording: boolean;
  response: IncomingMessage;
  close(): void;
}

function subscribe(url: string, path: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false });
    req.on('error', reject);
    req.on('response', (response) => {
      const sub: Subscriber = { first: -1, last: -1, count: 0, missing: 0, latencies: [], recording: false, response, close: () => req.destroy() };
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const now = performance.timeOrigin + performance.now();
        text += chunk;
        const end = text.lastIndexOf('\n\n');
        if (end === -1) return;
        const complete = text.slice(0, end);
        text = text.slice(end + 2);
        for (const match of complete.matchAll(/"n":(\d+),"stamp":([\d.]+)/g)) {
          const n = Number(match[1]);
          if (sub.last !== -1 && n !== sub.last + 1) sub.missing += n - sub.last - 1;
          if (sub.first === -1) sub.first = n;
          sub.last = n;
          sub.count++;
          if (sub.recording) sub.latencies.push(now - Number(match[2]));
        }
      });
      resolve(sub);
    });
    req.end();
  });
}

/** A subscriber that never reads: its socket is paused from the first byte. */
function stalledSubscriber(url: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/events`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false });
    req.on('error', () => {});
    req.on('response', (response) => {
      response.pause();
      resolve(() => req.destroy());
    });
    req.once('error', reject);
    req.end();
  });
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bridge's highest RSS, sampled every 100 ms from `start` until `done` settles. */
async function peakRssUntil(bridge: BridgeProcess, done: Promise<unknown>, start: number): Promise<number> {
  let settled = false;
  void done.finally(() => (settled = true));
  let peak = start;
  while (!settled) {
    peak = Math.max(peak, (await bridge.request<{ rss: number }>('stats')).rss);
    await sleep(100);
  }
  return peak;
}

async function stats(bridge: BridgeProcess): Promise<BridgeStatsReply & { stats: { events: { overflowed: number; streams: number; dropped: number } } }> {
  return bridge.request('stats');
}

export async function eventsScenario(rows: Row[], raw: Record<string, unknown>, duration: number, quick = false): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-events-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${TOKEN}"\nmax_concurrent_requests = ${SLOTS}\nmax_event_streams = 32\n[Game]\nfps = ${FPS}\n`);
  const bridge = await startBridgeProcess({ configDir: dir, game: EVENT_GAME, gameOptions: { eventsPerSecond: RATE } });
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ name: 'get_world_state', args: {} });
  const model = SLOTS * FPS;
  const command = (seconds = duration) => load({ url: `${bridge.url}/cmd`, connections: SLOTS, duration: seconds, method: 'POST', headers, body });

  // Reference in the same run: the same load with the same 5,000 events/s produced, no subscriber.
  await command(quick ? 0.5 : duration); // warm-up
  const alone = await command();

  const subscribers = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => subscribe(bridge.url, '/events?kinds=ping')));
  await sleep(quick ? 250 : 1000);
  for (const sub of subscribers) sub.recording = true;
  const counts0 = subscribers.map((s) => s.count);
  // The reference for the stalled subscriber's memory: RSS growth under this same load without it.
  await bridge.request('gc');
  const referenceBefore = (await stats(bridge)).rss;
  const windowStart = performance.now();
  const duringLoad = command();
  const referencePeak = await peakRssUntil(bridge, duringLoad, referenceBefore);
  const during = await duringLoad;
  await sleep(500); // what was emitted by the end of the load is delivered
  for (const sub of subscribers) sub.recording = false;
  const windowS = (performance.now() - windowStart) / 1000;
  const received = subscribers.map((s, i) => s.count - counts0[i]!);
  const missing = subscribers.reduce((sum, s) => sum + s.missing, 0);
  const latencies = subscribers.flatMap((s) => s.latencies);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  const perSecond = received.reduce((a, b) => a + b, 0) / SUBSCRIBERS / windowS;
  rows.push({
    scenario: `events: ${SUBSCRIBERS} SSE subscribers at ${RATE} events/s, delivered`,
    value: missing,
    unit: 'events missing',
    target: 'every event delivered (0 missing)',
    ok: missing === 0 && received.every((r) => r > 0),
    note: `${perSecond.toFixed(0)} events/s per subscriber received`,
  });
  rows.push({
    scenario: 'events: emit → client latency',
    value: p99,
    unit: 'ms p99',
    p50,
    p99,
    target: `p99 ≤ 2 frames (${((2 * 1000) / FPS).toFixed(0)} ms)`,
    ok: p99 <= (2 * 1000) / FPS,
    note: `${latencies.length} samples`,
  });
  rows.push({
    scenario: `events: POST get_world_state (${SLOTS} conn) while ${SUBSCRIBERS} subscribers run`,
    value: during.rps,
    unit: 'req/s',
    p50: during.p50,
    p99: during.p99,
    ratio: during.rps / model,
    target: `≥ 0.95× model ${model}/s`,
    ok: during.rps / model >= 0.95,
    note: `without subscribers ${alone.rps.toFixed(0)} req/s (${(during.rps / alone.rps).toFixed(2)}×)`,
  });

  // One subscriber that never reads (no kinds filter: pings and command records).
  await bridge.request('gc');
  const before = await stats(bridge);
  for (const sub of subscribers) {
    sub.recording = true;
    sub.latencies = [];
    sub.missing = 0;
  }
  const counts1 = subscribers.map((s) => s.count);
  const stopStalled = await stalledSubscriber(bridge.url);
  const t0 = performance.now();
  let closedAfterS = NaN;
  const stallLoad = command();
  // The kernel's socket buffers take several MB before the bridge's own 1 MiB fills: wait for the
  // close (at most 60 s), and at least as long as the command load runs.
  const closed = (async () => {
    while (performance.now() - t0 < 60_000) {
      if ((await stats(bridge)).stats.events.overflowed > 0) return void (closedAfterS = (performance.now() - t0) / 1000);
      await sleep(100);
    }
  })();
  const peakRss = await peakRssUntil(bridge, Promise.all([stallLoad, closed]), before.rss);
  await stallLoad;
  await sleep(500);
  const after = await stats(bridge);
  const stalledMissing = subscribers.reduce((sum, s) => sum + s.missing, 0);
  const stalledP99 = percentile(
    subscribers.flatMap((s) => s.latencies),
    99,
  );
  const othersReceived = subscribers.map((s, i) => s.count - counts1[i]!);
  rows.push({
    scenario: 'events: one stalled subscriber (never reads)',
    value: closedAfterS,
    unit: 's to close it',
    target: 'closed at its 1 MiB buffer; the others get every event, p99 ≤ 33 ms',
    ok: after.stats.events.overflowed === 1 && stalledMissing === 0 && othersReceived.every((r) => r > 0) && stalledP99 <= (2 * 1000) / FPS,
    note: `others: ${stalledMissing} missing, p99 ${stalledP99.toFixed(1)} ms; streams left ${after.stats.events.streams}`,
  });
  // What the stalled subscriber adds: the growth under the load with it, less the growth under the
  // same load without it (the command load alone moved RSS by 6 to 36 MB between full runs).
  const stalledGrowthMb = (peakRss - before.rss) / 2 ** 20;
  const referenceGrowthMb = (referencePeak - referenceBefore) / 2 ** 20;
  rows.push({
    scenario: 'events: bridge RSS growth a stalled subscriber adds',
    value: stalledGrowthMb - referenceGrowthMb,
    unit: 'MB',
    target: 'bounded: its buffer (1 MiB) plus noise, ≤ 16 MB beyond the same load without it',
    ok: stalledGrowthMb - referenceGrowthMb <= 16,
    note: `growth with it ${stalledGrowthMb.toFixed(1)} MB (RSS ${(before.rss / 2 ** 20).toFixed(0)} → ${(peakRss / 2 ** 20).toFixed(0)} MB), without it ${referenceGrowthMb.toFixed(1)} MB`,
  });
  raw.events = {
    alone,
    during,
    received,
    missing,
    p50,
    p99,
    stalled: {
      closedAfterS,
      before: before.stats.events,
      after: after.stats.events,
      peakRss,
      referenceBefore,
      referencePeak,
      othersReceived,
      stalledMissing,
      stalledP99,
    },
  };
  stopStalled();
  for (const sub of subscribers) sub.close();
  await bridge.stop();
}
