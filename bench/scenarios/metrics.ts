// Metrics (decisions §9): what the request series cost. The same bridge build runs with
// metrics on and off (startBridge({ metrics: false })); /health and the frame-model command
// (get_world_state, 8 connections, 8 slots) are loaded on each in short runs that alternate (off,
// on, on, off, ...), and the medians are compared: on ≥ 0.97× off. On a shared machine whose load
// drifts, short alternating runs put both sides under the same load. Then one scrape of /metrics
// under load, timed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startBridgeProcess, type BridgeProcess, type LoadResult } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const TOKEN = 'm'.repeat(48);
const FPS = 60;

function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-metrics-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${TOKEN}"\nmax_concurrent_requests = 8\n[Game]\nfps = ${FPS}\n`);
  return dir;
}

const auth = { authorization: `Bearer ${TOKEN}` };

function run(bridge: BridgeProcess, what: 'health' | 'frame', duration: number): Promise<LoadResult> {
  if (what === 'health') return load({ url: `${bridge.url}/health`, connections: 8, duration, headers: auth });
  return load({
    url: `${bridge.url}/cmd`,
    connections: 8,
    duration,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'get_world_state', args: {} }),
  });
}

export async function metricsScenario(rows: Row[], raw: Record<string, unknown>, duration: number, quick = false): Promise<void> {
  // --quick: runs of 0.3 s, for warm-ups and rounds alike.
  const runS = quick ? 0.3 : 2;
  // Started side by side, to wait for one start instead of two: nothing is measured until both are up.
  const [on, off] = await Promise.all([
    startBridgeProcess({ configDir: configDir(), metrics: true }),
    startBridgeProcess({ configDir: configDir(), metrics: false }),
  ]);
  const results: Record<string, LoadResult[]> = {};
  try {
    // Warm both (compiled code, routers, label children) before anything counts.
    for (const bridge of [on, off]) {
      await run(bridge, 'health', runS);
      await run(bridge, 'frame', runS);
    }
    const rounds = Math.max(2, Math.round(duration / 2.5));
    for (const what of ['health', 'frame'] as const) {
      for (let round = 0; round < rounds; round++) {
        const order =
          round % 2 === 0
            ? ([
                ['off', off],
                ['on', on],
              ] as const)
            : ([
                ['on', on],
                ['off', off],
              ] as const);
        for (const [side, bridge] of order) {
          const result = await run(bridge, what, runS);
          (results[`${what} ${side}`] ??= []).push(result);
          process.stderr.write(`  metrics ${side}, ${what}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms\n`);
        }
      }
    }
    const median = (key: string) => {
      const sorted = [...results[key]!].sort((a, b) => a.rps - b.rps);
      return sorted[Math.floor(sorted.length / 2)]!;
    };
    for (const [what, label] of [
      ['health', 'GET /health (8 conn)'],
      ['frame', 'POST get_world_state (frame model, 8 conn, 8 slots)'],
    ] as const) {
      const a = median(`${what} on`);
      const b = median(`${what} off`);
      rows.push({
        scenario: `${label}, metrics on vs off`,
        value: a.rps,
        unit: 'req/s',
        p50: a.p50,
        p99: a.p99,
        ratio: a.rps / b.rps,
        target: '≥ 0.97× metrics off',
        ok: a.rps / b.rps >= 0.97,
        note: `off: ${b.rps.toFixed(0)} req/s, p99 ${b.p99} ms; medians of ${results[`${what} on`]!.length} alternating ${runS} s runs`,
      });
    }
    // A scrape while the bridge is loaded: what a Prometheus server asking every 15 s costs.
    const loading = run(on, 'health', Math.min(duration, 3));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const t0 = performance.now();
    const text = await (await fetch(`${on.url}/metrics`, { headers: auth })).text();
    const scrapeMs = performance.now() - t0;
    await loading;
    rows.push({ scenario: 'GET /metrics under /health load', value: scrapeMs, unit: 'ms', note: `${(text.length / 1024).toFixed(1)} KiB of text` });
    raw.metrics = { results, scrapeMs, scrapeBytes: text.length };
  } finally {
    await on.stop();
    await off.stop();
  }
}
