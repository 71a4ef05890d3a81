// `--only main-loop`: the main loop's cost per request, beside bare hono, in alternating rounds. On a
// shared 2-core machine one bridge run and one reference run minutes apart can differ by 30% from
// load alone; rounds that alternate bridge and reference (the order turned each round) and the
// median of their ratios hold still. Each side also reports its main thread's CPU per request
// (user + system from /proc, so socket writes count), the figure the throughput follows, and every
// thread's (pool, game and garbage-collector threads take CPU from it on 2 cores). whoami is
// also measured beside bare hono + piscina (servers/hono-pool.ts): the pool round trip alone; /health
// also beside bare hono serving its own bytes and headers (a row without a target).
import { readFileSync } from 'node:fs';
import { answerFile, load, mainThreadCpuMs, processCpuMs, startBridgeProcess, startServer, type LoadOptions, type LoadResult } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';
import { auth, cmdBody, configDir, jsonAuth } from '../lib/requests.ts';
import { meets, REQUEST_PATH_TARGETS, throughputTarget, type RequestPathTarget } from '../lib/targets.ts';

interface Side {
  rps: number;
  p99: number;
  /** Main-thread CPU per request, µs (NaN without /proc). */
  cpuUs: number;
  /** Every thread's CPU per request, µs (NaN without /proc). */
  allCpuUs: number;
}

interface Pair {
  scenario: string;
  bridge: (url: string, token: string) => LoadOptions;
  reference: (url: string) => LoadOptions;
  /**
   * A third side in the same rounds: the reference's request sent to bare hono + piscina (the pool
   * round trip alone). The row's ratio and target are then against it.
   */
  withPool?: boolean;
  /** None for a row that only informs (no target of its own). */
  target?: string;
  ok?(ratio: number, p99: number): boolean;
  /** A target of bench/lib/targets.ts: requests/s and main-thread CPU per request against the row's reference. */
  requestPath?: RequestPathTarget;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measured(pid: number | undefined, options: LoadOptions): Promise<Side & { result: LoadResult }> {
  const cpu0 = mainThreadCpuMs(pid);
  const all0 = processCpuMs(pid);
  const result = await load(options);
  const cpu1 = mainThreadCpuMs(pid);
  const all1 = processCpuMs(pid);
  const perRequest = (a: number | null, b: number | null) => (a === null || b === null || result.total === 0 ? NaN : ((b - a) * 1000) / result.total);
  return { rps: result.rps, p99: result.p99, cpuUs: perRequest(cpu0, cpu1), allCpuUs: perRequest(all0, all1), result };
}

export async function mainLoopScenario(rows: Row[], raw: Record<string, unknown>, quick: boolean): Promise<void> {
  const rounds = quick ? 3 : 5;
  // --quick: 0.3 s rounds and warm-ups (36 runs); CPU per request is then read from about 30 ticks.
  const seconds = quick ? 0.3 : 4;
  const warmUpS = quick ? 0.3 : 1;
  const bridge = await startBridgeProcess({ configDir: configDir() });
  // The reference serves the bridge's own /capabilities bytes, and its /health bytes at /health-same.
  const file = await answerFile(bridge, '/capabilities');
  const capabilities = readFileSync(file);
  const hono = await startServer('bare-hono.ts', [file, await answerFile(bridge, '/health')]);
  const honoPool = await startServer('hono-pool.ts');
  const get = (url: string, headers: Record<string, string> = {}): LoadOptions => ({ url, connections: 8, duration: seconds, headers });
  const post = (url: string, headers: Record<string, string>): LoadOptions => ({
    url,
    connections: 8,
    duration: seconds,
    method: 'POST',
    headers,
    body: cmdBody('whoami'),
  });
  const pairs: Pair[] = [
    {
      scenario: `GET /capabilities vs bare hono, same ${(capabilities.length / 1024).toFixed(1)} KB and headers`,
      bridge: (url, token) => get(`${url}/capabilities`, auth(token)),
      reference: (url) => get(`${url}/capabilities`),
      target: '≥ 0.9×',
      ok: (ratio) => ratio >= 0.9,
    },
    {
      scenario: 'GET /health vs bare hono GET',
      bridge: (url, token) => get(`${url}/health`, auth(token)),
      reference: (url) => get(`${url}/health`),
      requestPath: REQUEST_PATH_TARGETS.health,
    },
    {
      // No target: the one above is against plain GET. This tells the bridge's own work from the
      // cost of its larger answer (as /capabilities' reference does).
      scenario: "GET /health vs bare hono serving /health's bytes and headers",
      bridge: (url, token) => get(`${url}/health`, auth(token)),
      reference: (url) => get(`${url}/health-same`),
    },
    {
      scenario: 'POST /cmd whoami (pool) vs bare hono + piscina POST',
      bridge: (url, token) => post(`${url}/cmd`, jsonAuth(token)),
      reference: (url) => post(`${url}/cmd`, { 'content-type': 'application/json' }),
      withPool: true,
      requestPath: REQUEST_PATH_TARGETS.whoami,
    },
  ];
  // One at a time: warm-ups that overlap would warm each other's competition, not the servers.
  for (const pair of pairs) {
    await load({ ...pair.bridge(bridge.url, bridge.token), duration: warmUpS });
    await load({ ...pair.reference(hono.url), duration: warmUpS });
    if (pair.withPool) await load({ ...pair.reference(honoPool.url), duration: warmUpS });
  }
  const results: Record<string, { bridge: Side[]; reference: Side[]; floor: Side[] }> = {};
  for (const pair of pairs) {
    const sides = { bridge: [] as Side[], reference: [] as Side[], floor: [] as Side[] };
    const floor = pair.withPool;
    const runs = [
      async () => sides.bridge.push(strip(await measured(bridge.child.pid, pair.bridge(bridge.url, bridge.token)))),
      async () => sides.reference.push(strip(await measured(hono.child.pid, pair.reference(hono.url)))),
      ...(floor ? [async () => sides.floor.push(strip(await measured(honoPool.child.pid, pair.reference(honoPool.url))))] : []),
    ];
    // Each round runs every side once, in an order turned by one each round, so none always runs first.
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < runs.length; i++) await runs[(round + i) % runs.length]!();
    }
    results[pair.scenario] = sides;
    // The row's reference: bare hono, or for a pool command bare hono + piscina (the design's floor).
    const against = floor ? sides.floor : sides.reference;
    const ratios = sides.bridge.map((b, i) => b.rps / against[i]!.rps);
    const ratio = median(ratios);
    const p99 = median(sides.bridge.map((b) => b.p99));
    const cpu = median(sides.bridge.map((b) => b.cpuUs));
    const refCpu = median(against.map((r) => r.cpuUs));
    const allCpu = median(sides.bridge.map((b) => b.allCpuUs));
    const refAllCpu = median(against.map((r) => r.allCpuUs));
    const cpuRatio = median(sides.bridge.map((b, i) => b.cpuUs / against[i]!.cpuUs));
    process.stderr.write(
      `  main loop: ${pair.scenario}: ${ratios.map((r) => r.toFixed(2)).join(' ')}; main thread ${cpu.toFixed(1)} vs ${refCpu.toFixed(1)}, all threads ${allCpu.toFixed(1)} vs ${refAllCpu.toFixed(1)} µs/req\n`,
    );
    rows.push({
      scenario: `main loop: ${pair.scenario}`,
      value: median(sides.bridge.map((b) => b.rps)),
      unit: 'req/s',
      p99,
      ratio,
      target: pair.requestPath ? throughputTarget(pair.requestPath, true) : pair.target,
      ok: pair.requestPath ? meets(pair.requestPath, { throughputRatio: ratio, p99, cpuRatio }) : pair.ok?.(ratio, p99),
      note:
        `median of ${rounds} alternating ${seconds} s rounds, ratio ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; ` +
        `main thread ${cpu.toFixed(1)} µs CPU/req (reference ${refCpu.toFixed(1)}; ${cpuRatio.toFixed(2)}× in paired rounds), all threads ${allCpu.toFixed(1)} (${refAllCpu.toFixed(1)})` +
        (floor ? `; against bare hono POST ${median(sides.bridge.map((b, i) => b.rps / sides.reference[i]!.rps)).toFixed(2)}×` : ''),
    });
    if (floor) {
      const floorRatios = sides.floor.map((f, i) => f.rps / sides.reference[i]!.rps);
      const floorCpu = median(sides.floor.map((f) => f.cpuUs));
      const floorAllCpu = median(sides.floor.map((f) => f.allCpuUs));
      process.stderr.write(
        `  main loop: bare hono + piscina POST: ${floorRatios.map((r) => r.toFixed(2)).join(' ')}; main thread ${floorCpu.toFixed(1)}, all threads ${floorAllCpu.toFixed(1)} µs/req\n`,
      );
      rows.push({
        scenario: 'main loop: bare hono + piscina POST vs bare hono POST (reference: the pool round trip alone)',
        value: median(sides.floor.map((f) => f.rps)),
        unit: 'req/s',
        p99: median(sides.floor.map((f) => f.p99)),
        ratio: median(floorRatios),
        note:
          `same rounds as whoami, ratio ${Math.min(...floorRatios).toFixed(2)}–${Math.max(...floorRatios).toFixed(2)}; ` +
          `main thread ${floorCpu.toFixed(1)} µs CPU/req, all threads ${floorAllCpu.toFixed(1)}; the ceiling of any pool command's ratio`,
      });
    }
  }
  raw.mainLoop = results;
  await hono.stop();
  await honoPool.stop();
  await bridge.stop();
}

function strip(side: Side & { result: LoadResult }): Side {
  return { rps: side.rps, p99: side.p99, cpuUs: side.cpuUs, allCpuUs: side.allCpuUs };
}
