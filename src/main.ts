// The command line: `npm start -- [--config-dir DIR] [--port N] [--game MODULE] [--lockstep]` (decisions §1, §12).
import { parseArgs } from 'node:util';
import { startBridge } from './bridge.ts';
import { ConfigError } from './config/load.ts';
import { createLogger, logCrashes } from './log/logger.ts';

const USAGE = 'usage: npm start -- [--config-dir DIR] [--port N] [--game MODULE] [--lockstep]';

export async function main(argv: string[]): Promise<void> {
  let values: { 'config-dir'?: string; port?: string; game?: string; lockstep?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'config-dir': { type: 'string' },
        port: { type: 'string' },
        game: { type: 'string' },
        // decisions §12: overrides [Game] clock.
        lockstep: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    fatal(`${(err as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    // 0 asks the system for a free port (the startup line shows which).
    if (!/^\d+$/.test(values.port) || port > 65535) fatal(`--port ${values.port} is not allowed; allowed: an integer from 1 to 65535 (0: any free port)`);
  }
  // decisions §10: every log line is written before the process exits, a crash's own line last.
  const logger = createLogger();
  logCrashes(logger);
  let bridge: Awaited<ReturnType<typeof startBridge>>;
  try {
    bridge = await startBridge({
      logger,
      ...(values['config-dir'] === undefined ? {} : { configDir: values['config-dir'] }),
      ...(port === undefined ? {} : { port }),
      ...(values.game === undefined ? {} : { game: values.game }),
      ...(values.lockstep ? { clock: 'lockstep' as const } : {}),
    });
  } catch (err) {
    if (err instanceof ConfigError) fatal(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fatal(`port ${port ?? 'from bridge.toml'} is already in use; pick another with --port N or [Bridge] port`);
    fatal(`the bridge could not start: ${(err as Error).message}`);
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    bridge.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // decisions §10: SIGHUP reads agents.json again at once (it is also polled every 2 s).
  process.on('SIGHUP', () => void bridge.reloadAgents());
  // decisions §1: one line with the URL, the config file and mod_version; never the token. Written
  // after the handlers: a supervisor may send SIGTERM the moment it reads the line (a test's SIGINT
  // once arrived in between and ended the process before it could close).
  process.stdout.write(`Game Control Bridge ${bridge.info.modVersion} listening on ${bridge.url} (config: ${bridge.configPath})\n`);
}

function fatal(message: string): never {
  process.stderr.write(`gcb: ${message}\n`);
  process.exit(2);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
