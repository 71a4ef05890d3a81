// Fair admission (decisions §10): one greedy agent keeps 4× the slots' worth of
// get_world_state requests outstanding (autocannon, one request per connection), one polite agent
// sends one at a time. The polite agent's p50/p99 beside its figure on an idle bridge; the greedy
// agent's throughput beside the frame model of the slots the polite one leaves. Goals: polite p99
// ≤ 3 frames, greedy ≥ 0.95× (slots − 1) × fps.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startBridgeProcess } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const FPS = 60;
const SLOTS = 8;
const GREEDY = 'greedy-agent-token-abcdefghijklmnopqrstuvwxyz0123456789';
const POLITE = 'polite-agent-token-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const FRAME_MS = 1000 / FPS;
const BODY = JSON.stringify({ name: 'get_world_state', args: {} });

/** One agent sending one request at a time for `ms`; each answer's latency in ms. */
async function politeLoop(url: string, token: string, ms: number): Promise<{ latencies: number[]; statuses: Record<number, number> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${url}/cmd`,
        { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(BODY);
    });
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === 200) latencies.push(performance.now() - t0);
    // One at a time, with a short think time, as an agent reading its answer would.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  agent.destroy();
  return { latencies, statuses };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function fairScenario(rows: Row[], raw: Record<string, unknown>, duration: number, quick = false): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-fair-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'f'.repeat(48)}"\nmax_concurrent_requests = ${SLOTS}\n[Game]\nfps = ${FPS}\n`);
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      agents: [
        { id: 'greedy', token: GREEDY, role: 'observer' },
        { id: 'polite', token: POLITE, role: 'observer' },
      ],
    }),
  );
  const bridge = await startBridgeProcess({ configDir: dir });
  const greedyLoad = () =>
    load({
      url: `${bridge.url}/cmd`,
      connections: 4 * SLOTS,
      duration,
      method: 'POST',
      headers: { authorization: `Bearer ${GREEDY}`, 'content-type': 'application/json' },
      body: BODY,
    });

  await politeLoop(bridge.url, POLITE, 1000); // warm-up
  const unloaded = await politeLoop(bridge.url, POLITE, (quick ? 1 : Math.min(duration, 5)) * 1000);
  const greedyRun = greedyLoad();
  // The polite agent runs inside the greedy window, clear of its ramp-up and end.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const loaded = await politeLoop(bridge.url, POLITE, (duration - 2) * 1000);
  const greedy = await greedyRun;
  await bridge.stop();

  const model = (SLOTS - 1) * FPS;
  const p50 = percentile(loaded.latencies, 50);
  const p99 = percentile(loaded.latencies, 99);
  rows.push({
    scenario: 'fair: polite agent alone (one request at a time)',
    value: unloaded.latencies.length,
    unit: 'requests',
    p50: percentile(unloaded.latencies, 50),
    p99: percentile(unloaded.latencies, 99),
    note: `frame ${FRAME_MS.toFixed(1)} ms`,
  });
  rows.push({
    scenario: `fair: polite agent while a greedy one keeps ${4 * SLOTS} requests outstanding (${SLOTS} slots)`,
    value: p99 / FRAME_MS,
    unit: 'frames p99',
    p50,
    p99,
    target: `p99 ≤ 3 frames (${(3 * FRAME_MS).toFixed(0)} ms)`,
    ok: p99 <= 3 * FRAME_MS,
    note: `p50 ${(p50 / FRAME_MS).toFixed(2)} frames; ${loaded.latencies.length} requests, status ${JSON.stringify(loaded.statuses)}`,
  });
  rows.push({
    scenario: 'fair: greedy agent throughput beside it',
    value: greedy.rps,
    unit: 'req/s',
    p50: greedy.p50,
    p99: greedy.p99,
    ratio: greedy.rps / model,
    target: `≥ 0.95× model (${SLOTS} − 1 slots) × ${FPS} fps = ${model}/s`,
    ok: greedy.rps / model >= 0.95,
    note: `status ${JSON.stringify(greedy.statusCodes)}`,
  });
  raw.fair = { unloaded, loaded, greedy, model };
}
