import pino, { type DestinationStream, type Logger } from 'pino';
import { LIMITS } from '../limits.ts';
import { BatchedWriter } from './batched-writer.ts';

export type { Logger };

/**
 * pino, JSON, to stderr (stdout carries only the startup line). Tokens never reach a log line:
 * the bridge never logs headers or configs, and redaction is the second line of defence for any
 * object that carries one by mistake.
 */
/** Loggers made by createLogger: their line format is known, so hot lines may be written directly. */
const OWN = new WeakSet<Logger>();

export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const destination = options.destination ?? stderrDestination();
  const logger = pino(
    {
      level: options.level ?? process.env.GCB_LOG_LEVEL ?? 'info',
      base: undefined,
      redact: {
        // Top-level paths only: wildcard paths cost every log call, and no line of ours nests one.
        paths: ['token', 'authorization', 'headers', 'Bridge', 'config.Bridge'],
        censor: '[redacted]',
      },
    },
    destination,
  );
  OWN.add(logger);
  return logger;
}

/**
 * Where a hot line may be written as ready-made JSON, bypassing pino's serialiser: the logger's
 * stream when it is one of ours (no formatters, mixins or hooks, so pino would write exactly
 * `{"level":30,"time":…,<fields>,"msg":…}`), else null (an embedder's logger: use its methods).
 */
export function rawStreamOf(log: Logger): DestinationStream | null {
  return OWN.has(log) ? ((log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym] ?? null) : null;
}

let stderr: BatchedWriter | null = null;

/**
 * decisions §10: request lines stay asynchronous and batched (4 KiB a write under load), but none
 * waits longer than `LIMITS.logFlushMs`: the first line written after a flush arms one timer that
 * flushes what has collected by then (half the limit, so a slow write still lands in time). One
 * writer for the process's stderr, whatever number of loggers write to it (a test process starts
 * hundreds of bridges), flushed synchronously when the process exits.
 */
function stderrDestination(): DestinationStream {
  if (stderr === null) {
    const writer = new BatchedWriter(2, { minLength: 4096, flushWithinMs: LIMITS.logFlushMs / 2 });
    process.on('exit', () => writer.flushSync());
    stderr = writer;
  }
  return stderr;
}

/**
 * decisions §10: every line is written before the process exits. For the command line: a crash
 * (an uncaught exception or unhandled rejection) is logged as the last line, flushed
 * synchronously, and the process exits 1. A library embedding the bridge keeps its own policy.
 */
export function logCrashes(log: Logger): void {
  const crash = (err: unknown, origin: string) => {
    log.fatal({ err, origin }, `the bridge stops: ${origin}: ${(err as Error)?.message ?? String(err)}`);
    flushSync(log);
    process.exit(1);
  };
  process.on('uncaughtException', (err) => crash(err, 'uncaught exception'));
  process.on('unhandledRejection', (err) => crash(err, 'unhandled rejection'));
}

/** Writes what the logger holds now, synchronously (before an exit). */
export function flushSync(log: Logger): void {
  const stream = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { flushSync?: () => void } | undefined;
  try {
    stream?.flushSync?.();
  } catch {
    // A write in flight or a closed stderr: nothing more can be done on the way out.
  }
}
