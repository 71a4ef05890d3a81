// Transfer flood (decisions §13 and §15), `--only transfer-flood`: one faction player (ares) sends
// 65,000-byte bodies (unknown commands, each just under the 64 KiB that makes a body large) on 16
// connections, back to back, against a bridge in multi-agent mode with default settings; another
// player (athena) sends whoami at a steady rate, before the attack (idle) and during it. Two rows:
// ares's bodies read in MiB/s against the one-agent rate (16 MiB/s: the gate lets it have that, 64
// KiB and one body over the whole run), and athena's whoami median under attack against its idle
// median (goal: within 3×). Bounded: 16 hostile connections and at most 2 polite ones, loopback
// only, 10 s of attack (2 s --quick).
import { DEFAULT_TIMINGS, LIMITS } from '../../src/limits.ts';
import { load, startBridgeProcess, type LoadResult } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';
import { configDir, GOD, HOSTILE, percentile, politeAgent, type Polite } from './hostile-memory.ts';

const BODY_BYTES = 65_000;
const CONNECTIONS = 16;
/** The one-agent rate, MiB/s. */
const RATE_MIB_S = 1000 / DEFAULT_TIMINGS.transferRestMsPerMiB;

function body(bytes: number): string {
  const head = '{"name":"no_such_command","args":{"pad":"';
  const tail = '"}}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** athena's whoami for `ms`, at POLITE_INTERVAL_MS: its latencies and failures. */
function politeFor(url: string, ms: number): Promise<Polite> {
  const until = performance.now() + ms;
  return politeAgent(url, () => performance.now() < until);
}

export async function transferFloodScenario(rows: Row[], raw: Record<string, unknown>, quick: boolean): Promise<void> {
  const seconds = quick ? 2 : 10;
  const bridge = await startBridgeProcess({ configDir: configDir() });
  try {
    // A load generator started and ready, and the polite path warmed up, before anything counts.
    await load({ url: `${bridge.url}/health`, connections: 1, duration: 0.2, headers: { authorization: `Bearer ${GOD}` } });
    await politeFor(bridge.url, quick ? 500 : 1000);
    const idle = await politeFor(bridge.url, seconds * 1000);

    const t0 = performance.now();
    const flood = load({
      url: `${bridge.url}/cmd`,
      connections: CONNECTIONS,
      duration: seconds,
      method: 'POST',
      headers: { authorization: `Bearer ${HOSTILE}`, 'content-type': 'application/json' },
      body: body(BODY_BYTES),
    });
    let attacking = true;
    void flood.finally(() => (attacking = false));
    const attacked = await politeAgent(bridge.url, () => attacking);
    const hostile: LoadResult = await flood;
    const elapsedS = (performance.now() - t0) / 1000;

    const read = hostile.statusCodes['404'] ?? 0;
    const mibS = (read * BODY_BYTES) / 2 ** 20 / elapsedS;
    // The gate's bound over the whole run: the rate, its allowance (64 KiB) and one body.
    const boundMibS = RATE_MIB_S + (LIMITS.largeBodyBytes + BODY_BYTES) / 2 ** 20 / elapsedS;
    rows.push({
      scenario: 'transfer flood: one player, 65,000-byte bodies on 16 connections (bodies read)',
      value: mibS,
      unit: 'MiB/s',
      ratio: mibS / RATE_MIB_S,
      target: `≤ ${RATE_MIB_S} MiB/s (the one-agent rate; ${boundMibS.toFixed(2)} with 64 KiB and one body over ${elapsedS.toFixed(1)} s)`,
      ok: read > 0 && mibS <= boundMibS,
      note: `${read} bodies read (404) of ${hostile.total} answered, status ${JSON.stringify(hostile.statusCodes)}${hostile.errors > 0 ? `, ${hostile.errors} errors` : ''}`,
    });
    const idleMedian = percentile(idle.latencies, 50);
    const attackedMedian = percentile(attacked.latencies, 50);
    rows.push({
      scenario: "transfer flood: another player's whoami median under it",
      value: attackedMedian,
      unit: 'ms',
      p50: attackedMedian,
      p99: percentile(attacked.latencies, 99),
      ratio: attackedMedian / idleMedian,
      target: '≤ 3× its idle median',
      ok: attacked.failed === 0 && attacked.latencies.length > 0 && attackedMedian <= 3 * idleMedian,
      note:
        `idle median ${idleMedian.toFixed(2)} ms (p99 ${percentile(idle.latencies, 99).toFixed(2)}); ` +
        `${attacked.latencies.length} whoami under attack, ${attacked.failed} failed`,
    });
    raw.transferFlood = { seconds, elapsedS, hostile, idle, attacked };
    for (const row of rows.slice(-2)) process.stderr.write(`  ${row.scenario}: ${row.value.toFixed(2)} ${row.unit}; ${row.note}\n`);
  } finally {
    await bridge.stop();
  }
}
