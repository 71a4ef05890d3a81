// `node --import tsx bench/log-line.ts [-- --lines N] [-- --rounds R]`: what a request log line
// costs by where it is written. Each run is a fresh process writing N lines of /health's shape
// through the request line writer (src/http/request-line.ts), 8 lines a turn of the event loop as
// requests would come, its stderr a file, and reads its own CPU from /proc: the main thread's and
// every thread's (the thread pool's writes, a transport's worker). Destinations, alternated by round:
// - off: the level above info, so no line is built (the loop's own cost);
// - sonic-boom: pino.destination({ sync: false, minLength: 4096 }), what the bridge wrote with before;
// - batched: the bridge's own stderr writer (src/log/batched-writer.ts);
// - transport: pino's worker-thread transport (pino/file to fd 2), the line moved off the main loop.
import { spawnSync } from 'node:child_process';
import { openSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { requestLineWriter } from '../src/http/request-line.ts';
import { createLogger } from '../src/log/logger.ts';

const DESTINATIONS = ['off', 'sonic-boom', 'batched', 'transport'] as const;
type Destination = (typeof DESTINATIONS)[number];

const { values } = parseArgs({ options: { lines: { type: 'string' }, rounds: { type: 'string' }, child: { type: 'string' } } });
const LINES = Number(values.lines ?? 200_000);
const ROUNDS = Number(values.rounds ?? 5);

function cpuMs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function child(destination: Destination): Promise<void> {
  const logger =
    destination === 'off'
      ? createLogger({ level: 'warn' })
      : destination === 'sonic-boom'
        ? createLogger({ destination: pino.destination({ dest: 2, sync: false, minLength: 4096 }) })
        : destination === 'transport'
          ? createLogger({ destination: pino.transport({ target: 'pino/file', options: { destination: 2 } }) })
          : createLogger();
  const write = requestLineWriter(logger);
  const rid = '1b4e28ba-2fa1-41d2-883f-00163e8a1c2d';
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      write({
        rid,
        method: 'GET',
        path: '/health',
        agent: 'legacy',
        command: null,
        status: 200,
        code: null,
        admission_wait_ms: 0,
        queue_wait_ms: 0,
        run_ms: 0,
        ms: 0.05,
      });
      if (i % 8 === 7) await new Promise(setImmediate);
    }
  };
  const main = `/proc/${process.pid}/task/${process.pid}/stat`;
  const all = `/proc/${process.pid}/stat`;
  await run(20_000); // warm-up: compiled code, the writer's buffers, the transport's worker
  await new Promise((resolve) => setTimeout(resolve, 200));
  const main0 = cpuMs(main);
  const all0 = cpuMs(all);
  await run(LINES);
  // The last batches written (the thread pool's, the worker's) count too.
  await new Promise((resolve) => setTimeout(resolve, 600));
  process.stdout.write(JSON.stringify({ mainUs: ((cpuMs(main) - main0) * 1000) / LINES, allUs: ((cpuMs(all) - all0) * 1000) / LINES }));
}

if (values.child) {
  await child(values.child as Destination);
} else {
  const results = new Map<Destination, Array<{ mainUs: number; allUs: number }>>(DESTINATIONS.map((d) => [d, []]));
  const load = [loadavg()[0]!];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < DESTINATIONS.length; i++) {
      const destination = DESTINATIONS[(round + i) % DESTINATIONS.length]!;
      const file = join(tmpdir(), `gcb-log-line-${process.pid}.stderr`);
      const stderr = openSync(file, 'w');
      const done = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', destination, '--lines', String(LINES)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', stderr],
      });
      rmSync(file, { force: true });
      if (done.status !== 0) throw new Error(`${destination}: exit ${done.status}`);
      results.get(destination)!.push(JSON.parse(done.stdout));
    }
  }
  load.push(loadavg()[0]!);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const off = results.get('off')!;
  process.stdout.write(
    `${LINES} lines a run, median of ${ROUNDS} alternating runs, load average ${load.map((l) => l.toFixed(1)).join(' → ')}; µs of CPU a line, the loop's own (off) taken out:\n`,
  );
  for (const [destination, runs] of results) {
    const mainUs = median(runs.map((r) => r.mainUs));
    const allUs = median(runs.map((r) => r.allUs));
    const line =
      destination === 'off'
        ? `  off: the loop alone, main thread ${mainUs.toFixed(2)}, every thread ${allUs.toFixed(2)}`
        : `  ${destination}: main thread ${(mainUs - median(off.map((r) => r.mainUs))).toFixed(2)}, every thread ${(allUs - median(off.map((r) => r.allUs))).toFixed(2)}`;
    process.stdout.write(`${line} (runs: ${runs.map((r) => `${r.mainUs.toFixed(2)}/${r.allUs.toFixed(2)}`).join(', ')})\n`);
  }
}
