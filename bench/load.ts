// A load generator, in its own process so it never shares a loop with the server it measures, and
// kept for the next run (bench/lib/processes.ts). IPC: { type: 'run', options } → { type: 'result',
// result } or { type: 'error', message }; { type: 'stop' } ends the current run early, with the
// answers so far as its result. It exits with the bench.
import autocannon from 'autocannon';

type Run = ReturnType<typeof autocannon> & { stop(): void };
let current: Run | null = null;

/** `sampleMs`: how long autocannon's samples of the request count were (rps is their mean, per second). */
function summary(result: autocannon.Result, sampleMs: number) {
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, (stat as { count: number }).count]));
  return {
    rps: result.requests.average * (1000 / sampleMs),
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
  };
}

process.on('message', async (message: { type: 'run'; options: autocannon.Options } | { type: 'stop' }) => {
  if (message.type === 'stop') return current?.stop();
  try {
    // A fresh `requests` each run: autocannon's default ([{}], one array for the whole process) keeps
    // the first run's headers on its request object, and a later run would send them.
    // autocannon ends a run only at a sample: a run of part of a second (the quick bench's rounds and
    // warm-ups) samples every 100 ms, a run of whole seconds every second as before.
    const sampleMs = Number.isInteger(message.options.duration) ? 1000 : 100;
    current = autocannon({ requests: [{}], ...message.options, sampleInt: sampleMs, timeout: 70 }) as Run;
    const result = await current;
    process.send!({ type: 'result', result: summary(result, sampleMs) });
  } catch (error) {
    process.send!({ type: 'error', message: (error as Error).message });
  } finally {
    current = null;
  }
});
process.on('disconnect', () => process.exit(0));
