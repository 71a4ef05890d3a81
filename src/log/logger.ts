import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * pino, JSON, to stderr (stdout carries only the startup line). Tokens never reach a log line:
 * the bridge never logs headers or configs, and redaction is the second line of defence for any
 * object that carries one by mistake.
 */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 2, sync: false, minLength: 4096 });
  return pino(
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
}
