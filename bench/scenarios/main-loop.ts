// `--only main-loop`: the main loop's cost per request, beside references, in alternating rounds. On
// a shared 2-core machine one bridge run and one reference run minutes apart can differ by 30% from
// load alone; rounds that alternate the sides (the order turned each round) and the median of their
// ratios hold still. Each side's CPU per request is read from /proc: the whole process's (every
// thread), which the targets judge (bench/lib/targets.ts), and the main thread's (user + system, so
// socket writes count). The bridge runs as `npm start` runs it, writing its request lines to stderr
// (a file); each endpoint is measured against the bare stack and against the same stack writing a
// pino line a request. Also reported: /health against hono serving /health's own bytes and headers,
// and bare hono + piscina against bare hono POST (the pool round trip alone).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { answerFile, load, mainThreadCpuMs, processCpuMs, startBridgeProcess, startServer, type LoadOptions } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';
import { auth, cmdBody, configDir, jsonAuth } from '../lib/requests.ts';
import { judgedAgainst, meets, REQUEST_PATH_TARGETS, targetText, type Judged } from '../lib/targets.ts';

interface Measured {
  rps: number;
  p99: number;
  /** Main-thread CPU per request, µs (NaN without /proc). */
  cpuUs: number;
  /** The whole process's CPU per request, every thread, µs (NaN without /proc). */
  allCpuUs: number;
}

interface Side {
  label: string;
  pid: number | undefined;
  options: LoadOptions;
}

/** One row: `subject` against `reference` (indexes into the group's sides), from the same rounds. */
interface Comparison {
  scenario: string;
  subject: number;
  reference: number;
  judged?: Judged;
  /** Reported beside the ratio: the subject's throughput against another side of the rounds. */
  alsoAgainst?: { side: number; label: string };
}

/** Sides measured in the same alternating rounds, and the rows taken from them. */
interface Group {
  name: string;
  sides: Side[];
  comparisons: Comparison[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;

async function measured(pid: number | undefined, options: LoadOptions): Promise<Measured> {
  const cpu0 = mainThreadCpuMs(pid);
  const all0 = processCpuMs(pid);
  const result = await load(options);
  const cpu1 = mainThreadCpuMs(pid);
  const all1 = processCpuMs(pid);
  const perRequest = (a: number | null, b: number | null) => (a === null || b === null || result.total === 0 ? NaN : ((b - a) * 1000) / result.total);
  return { rps: result.rps, p99: result.p99, cpuUs: perRequest(cpu0, cpu1), allCpuUs: perRequest(all0, all1) };
}

export async function mainLoopScenario(rows: Row[], raw: Record<string, unknown>, quick: boolean): Promise<void> {
  // --quick: two rounds, a smoke run whose ratios judge nothing (the median of two is the higher).
  const rounds = quick ? 2 : 5;
  // --quick: 0.2 s rounds and warm-ups (48 runs); CPU per request is then read from about 20 ticks
  // of 10 ms, so a quick ratio moves by 10% from that alone.
  const seconds = quick ? 0.2 : 4;
  const warmUpS = quick ? 0.2 : 1;
  const bridge = await startBridgeProcess({ configDir: configDir() });
  // The references serve the bridge's own /capabilities bytes, and its /health bytes at /health-same.
  const capabilitiesFile = await answerFile(bridge, '/capabilities');
  const healthFile = await answerFile(bridge, '/health');
  const capabilitiesKb = (readFileSync(capabilitiesFile).length / 1024).toFixed(1);
  const [hono, honoLog, honoPool, honoPoolLog] = await Promise.all([
    startServer('bare-hono.ts', [capabilitiesFile, healthFile]),
    startServer('bare-hono.ts', ['--log', capabilitiesFile, healthFile]),
    startServer('hono-pool.ts'),
    startServer('hono-pool.ts', ['--log']),
  ]);
  const get = (url: string, headers: Record<string, string> = {}): LoadOptions => ({ url, connections: 8, duration: seconds, headers });
  const post = (url: string, headers: Record<string, string>): LoadOptions => ({
    url,
    connections: 8,
    duration: seconds,
    method: 'POST',
    headers,
    body: cmdBody('whoami'),
  });
  const json = { 'content-type': 'application/json' };
  const { capabilities, health, whoami } = REQUEST_PATH_TARGETS;
  const groups: Group[] = [
    {
      name: 'GET /capabilities',
      sides: [
        { label: 'bridge', pid: bridge.child.pid, options: get(`${bridge.url}/capabilities`, auth(bridge.token)) },
        { label: capabilities.references[0].name, pid: hono.child.pid, options: get(`${hono.url}/capabilities`) },
        { label: capabilities.references[1].name, pid: honoLog.child.pid, options: get(`${honoLog.url}/capabilities`) },
      ],
      comparisons: [
        { scenario: `GET /capabilities vs bare hono, same ${capabilitiesKb} KB and headers`, subject: 0, reference: 1, judged: judgedAgainst(capabilities, 0) },
        {
          scenario: `GET /capabilities vs bare hono + pino, same ${capabilitiesKb} KB and headers`,
          subject: 0,
          reference: 2,
          judged: judgedAgainst(capabilities, 1),
        },
      ],
    },
    {
      name: 'GET /health',
      sides: [
        { label: 'bridge', pid: bridge.child.pid, options: get(`${bridge.url}/health`, auth(bridge.token)) },
        { label: health.references[0].name, pid: hono.child.pid, options: get(`${hono.url}/health`) },
        { label: health.references[1].name, pid: honoLog.child.pid, options: get(`${honoLog.url}/health`) },
        // No target: these tell the bridge's own work from the cost of its larger answer (as
        // /capabilities' references do).
        { label: "bare hono, /health's bytes", pid: hono.child.pid, options: get(`${hono.url}/health-same`) },
        { label: "bare hono + pino, /health's bytes", pid: honoLog.child.pid, options: get(`${honoLog.url}/health-same`) },
      ],
      comparisons: [
        { scenario: 'GET /health vs bare hono GET', subject: 0, reference: 1, judged: judgedAgainst(health, 0) },
        { scenario: 'GET /health vs bare hono + pino GET', subject: 0, reference: 2, judged: judgedAgainst(health, 1) },
        { scenario: "GET /health vs bare hono serving /health's bytes and headers", subject: 0, reference: 3 },
        { scenario: "GET /health vs bare hono + pino serving /health's bytes and headers", subject: 0, reference: 4 },
      ],
    },
    {
      name: 'POST whoami',
      sides: [
        { label: 'bridge', pid: bridge.child.pid, options: post(`${bridge.url}/cmd`, jsonAuth(bridge.token)) },
        { label: whoami.references[0].name, pid: honoPool.child.pid, options: post(`${honoPool.url}/cmd`, json) },
        { label: whoami.references[1].name, pid: honoPoolLog.child.pid, options: post(`${honoPoolLog.url}/cmd`, json) },
        { label: 'bare hono POST', pid: hono.child.pid, options: post(`${hono.url}/cmd`, json) },
      ],
      comparisons: [
        {
          scenario: 'POST /cmd whoami (pool) vs bare hono + piscina POST',
          subject: 0,
          reference: 1,
          judged: judgedAgainst(whoami, 0),
          alsoAgainst: { side: 3, label: 'bare hono POST' },
        },
        { scenario: 'POST /cmd whoami (pool) vs bare hono + piscina + pino POST', subject: 0, reference: 2, judged: judgedAgainst(whoami, 1) },
        // The ceiling of any pool command's ratio: the round trip with nothing else.
        { scenario: 'bare hono + piscina POST vs bare hono POST (reference: the pool round trip alone)', subject: 1, reference: 3 },
      ],
    },
  ];
  // One at a time: warm-ups that overlap would warm each other's competition, not the servers.
  for (const group of groups) for (const side of group.sides) await load({ ...side.options, duration: warmUpS });
  const results: Record<string, Record<string, Measured[]>> = {};
  for (const group of groups) {
    const load1 = [loadavg()[0]!];
    const sides = group.sides.map(() => [] as Measured[]);
    // Each round runs every side once, in an order turned by one each round, so none always runs first.
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < group.sides.length; i++) {
        const at = (round + i) % group.sides.length;
        sides[at]!.push(await measured(group.sides[at]!.pid, group.sides[at]!.options));
      }
    }
    load1.push(loadavg()[0]!);
    results[group.name] = Object.fromEntries(group.sides.map((side, i) => [side.label, sides[i]!]));
    for (const comparison of group.comparisons) {
      const subject = sides[comparison.subject]!;
      const reference = sides[comparison.reference]!;
      const referenceLabel = group.sides[comparison.reference]!.label;
      const cpuRatios = subject.map((s, i) => reference[i]!.allCpuUs / s.allCpuUs);
      const rpsRatios = subject.map((s, i) => s.rps / reference[i]!.rps);
      const mainRatios = subject.map((s, i) => s.cpuUs / reference[i]!.cpuUs);
      const cpuRatio = median(cpuRatios);
      const mainThreadCpu = median(mainRatios);
      const p99 = median(subject.map((s) => s.p99));
      const us = (side: Measured[], key: 'cpuUs' | 'allCpuUs') => median(side.map((m) => m[key])).toFixed(1);
      const also = comparison.alsoAgainst;
      const alsoText = also ? `; req/s against ${also.label} ${median(subject.map((s, i) => s.rps / sides[also.side]![i]!.rps)).toFixed(2)}×` : '';
      process.stderr.write(
        `  main loop: ${comparison.scenario}: CPU ratio ${cpuRatios.map((r) => r.toFixed(2)).join(' ')}; req/s ratio ${rpsRatios.map((r) => r.toFixed(2)).join(' ')}\n`,
      );
      rows.push({
        scenario: `main loop: ${comparison.scenario}`,
        value: median(subject.map((s) => s.rps)),
        unit: 'req/s',
        p99,
        ratio: cpuRatio,
        target: comparison.judged ? targetText(comparison.judged) || undefined : undefined,
        ok: comparison.judged ? meets(comparison.judged, { cpuRatio, mainThreadCpu, p99 }) : undefined,
        note:
          `ratio: CPU/req of ${referenceLabel} ÷ this, every thread, median of ${rounds} alternating ${seconds} s rounds (${spread(cpuRatios)}): ` +
          `${us(subject, 'allCpuUs')} µs against ${us(reference, 'allCpuUs')}; ` +
          `req/s ${median(rpsRatios).toFixed(2)}× (${spread(rpsRatios)}); ` +
          `main thread ${us(subject, 'cpuUs')} µs CPU/req against ${us(reference, 'cpuUs')}, ${mainThreadCpu.toFixed(2)}× in paired rounds` +
          `${alsoText}; load average ${load1.map((l) => l.toFixed(1)).join(' → ')}`,
      });
    }
  }
  raw.mainLoop = results;
  await Promise.all([hono.stop(), honoLog.stop(), honoPool.stop(), honoPoolLog.stop()]);
  await bridge.stop();
}
