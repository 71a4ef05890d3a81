// gcb: the command line of the Game Control Bridge (bin/gcb.js runs it under tsx).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { newAgentToken } from '../auth/token-strength.ts';
import { BridgeClient, type RetryEvent } from '../client/client.ts';
import { readBridgeConfig } from '../client/config.ts';
import { BridgeCallError, BridgeConnectionError, ClientConfigError } from '../client/errors.ts';
import { DEFAULT_TOOL_PREFIX, TOOL_PREFIX_PATTERN } from '../mcp/tool-names.ts';
import { buildArgs, parseArgsObject, UsageError } from './args.ts';
import { connect, resolveConnection } from './connect.ts';
import { followEvents } from './events.ts';
import { EXIT, EXIT_BY_CODE, signalExit } from './exit-codes.ts';
import { HELP } from './help.ts';
import { renderCapabilities, renderError, renderHash, renderHealth, renderStep, renderValue } from './render.ts';

/** What runGcb returns: an exit code, or undefined for a server that keeps running (serve, mcp). */
export type ExitCode = number | undefined;

/** Where a run writes and what it reads: the process's own streams, or a test's. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is a terminal: readable output then, JSON otherwise. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** All of stdin (for `--json -`). */
  readStdin(): string;
  /** Whether this run prints JSON: fail() then writes the error envelope to stdout too. */
  json?: boolean;
}

const processIo = (): Io => ({
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  env: process.env,
  readStdin: () => readFileSync(0, 'utf8'),
});

const CONNECT_OPTIONS = {
  'config-dir': { type: 'string' },
  url: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export async function runGcb(argv: readonly string[], io: Io = processIo()): Promise<ExitCode> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case undefined:
        io.err(HELP.main!);
        return EXIT.USAGE;
      case '-h':
      case '--help':
        return print(io, HELP.main!);
      case 'help':
        return print(io, HELP[rest[0] ?? 'main'] ?? HELP.main!);
      case '-v':
      case '--version':
        return print(io, `${(await import('../version.ts')).MOD_VERSION}\n`);
      case 'serve':
        return await serve(rest, io);
      case 'health':
        return await health(rest, io);
      case 'capabilities':
        return await capabilities(rest, io);
      case 'call':
        return await call(rest, io);
      case 'batch':
        return await batch(rest, io);
      case 'step':
        return await step(rest, io);
      case 'hash':
        return await hash(rest, io);
      case 'replay':
        return await replay(rest, io);
      case 'token':
        return token(rest, io);
      case 'events':
        return await events(rest, io);
      case 'mcp':
        return await mcp(rest, io);
      default:
        throw new UsageError(`unknown command '${sub}' (commands: serve, health, capabilities, call, batch, step, hash, replay, events, token, mcp)`);
    }
  } catch (err) {
    return fail(err, io);
  }
}

/** decisions §1: `npm start` is this. The flags, startup line, signals and exit codes are main()'s own. */
async function serve(argv: string[], io: Io): Promise<ExitCode> {
  if (argv.includes('--help') || argv.includes('-h')) return print(io, HELP.serve!);
  const { main } = await import('../main.ts');
  await main(argv);
  return undefined;
}

async function health(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parse(argv, CONNECT_OPTIONS, 'health');
  if (values.help) return print(io, HELP.health!);
  const json = wantJson(io, values.json);
  const result = await client(values, io).health();
  return print(io, json ? `${JSON.stringify(result)}\n` : `${renderHealth(result)}\n`);
}

async function capabilities(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parse(argv, CONNECT_OPTIONS, 'capabilities');
  if (values.help) return print(io, HELP.capabilities!);
  const json = wantJson(io, values.json);
  const caps = await client(values, io).capabilities();
  return print(io, json ? `${JSON.stringify(caps)}\n` : renderCapabilities(caps));
}

async function call(argv: string[], io: Io): Promise<ExitCode> {
  // `--json` is both the output switch and, followed by an object (or - for stdin), the args.
  let jsonText: string | undefined;
  const args = [...argv];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--json=')) {
      jsonText = arg.slice('--json='.length);
      args.splice(i, 1, '--json');
    } else if (arg === '--json' && i + 1 < args.length && (args[i + 1] === '-' || /^\s*\{/.test(args[i + 1]!))) {
      jsonText = args[i + 1]!;
      args.splice(i + 1, 1);
    }
  }
  const { values, positionals } = parse(args, { ...CONNECT_OPTIONS, out: { type: 'string' } }, 'call', true);
  if (values.help) return print(io, HELP.call!);
  const [name, ...pairs] = positionals;
  if (name === undefined) throw new UsageError('call needs a command name: gcb call NAME [key=value ...]');
  const json = wantJson(io, values.json);
  const bridge = client(values, io);
  let base: Record<string, unknown> | undefined;
  if (jsonText !== undefined) base = parseArgsObject(jsonText === '-' ? io.readStdin() : jsonText);
  let callArgs = base;
  if (pairs.length > 0) {
    // The schema types the values; GET /capabilities is never gated, so this costs no slot.
    const descriptor = (await bridge.capabilities()).commands.find((c) => c.name === name);
    callArgs = buildArgs(pairs, base, descriptor?.schema);
  }
  const success = await bridge.request(name, callArgs);
  if (values.out !== undefined) success.result = writeOut(values.out, success.result);
  return print(io, json ? `${JSON.stringify(success)}\n` : `${renderValue(success.result)}\n`);
}

/**
 * decisions §8: `gcb batch FILE` (or - for stdin), a JSON array of {name, args}, run as one batch.
 * Exits 0 when every item ran; else with the exit code of the first failed item's error.
 */
async function batch(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parse(argv, { ...CONNECT_OPTIONS, 'keep-going': { type: 'boolean' } }, 'batch', true);
  if (values.help) return print(io, HELP.batch!);
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0)
    throw new UsageError('batch needs one FILE (or - for stdin) holding a JSON array of {"name": ..., "args": {...}}');
  const json = wantJson(io, values.json);
  const commands = parseBatchFile(file === '-' ? io.readStdin() : readFileSync(file, 'utf8'));
  const args: Record<string, unknown> = { commands };
  if (values['keep-going']) args.stop_on_error = false;
  const success = await client(values, io).request('batch', args);
  const result = success.result as { results: Array<Record<string, unknown>>; completed: number; failed: number; skipped: number };
  io.out(
    json
      ? `${JSON.stringify(success)}
`
      : renderBatch(commands, result),
  );
  const failed = result.results.find((item) => isRecord(item.error));
  return failed ? (EXIT_BY_CODE[(failed.error as { code: keyof typeof EXIT_BY_CODE }).code] ?? EXIT.INTERNAL) : EXIT.OK;
}

/** decisions §12: `gcb step N`, N ticks now. The bridge judges the number (1..10,000): its BAD_ARGS says what is allowed. */
async function step(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parse(argv, CONNECT_OPTIONS, 'step', true);
  if (values.help) return print(io, HELP.step!);
  const [count, ...extra] = positionals;
  if (count === undefined || extra.length > 0 || !/^-?\d+(\.\d+)?$/.test(count)) throw new UsageError('step needs one number of ticks: gcb step 100');
  const json = wantJson(io, values.json);
  const success = await client(values, io).request('step', { ticks: Number(count) });
  return print(io, json ? `${JSON.stringify(success)}\n` : renderStep(success.result as Parameters<typeof renderStep>[0]));
}

/** decisions §12: `gcb hash`, the world's digest and tick (world_hash). */
async function hash(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parse(argv, CONNECT_OPTIONS, 'hash');
  if (values.help) return print(io, HELP.hash!);
  const json = wantJson(io, values.json);
  const success = await client(values, io).request('world_hash', {});
  return print(io, json ? `${JSON.stringify(success)}\n` : renderHash(success.result as Parameters<typeof renderHash>[0]));
}

/**
 * decisions §12 and §15: `gcb replay FILE`, src/cli/replay.ts. SIGINT or SIGTERM stops the replay:
 * its own bridge closes and its temporary dir goes; a second one exits at once (the dir goes then too).
 */
async function replay(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parse(argv, { ...CONNECT_OPTIONS, record: { type: 'string' }, 'max-ticks': { type: 'string' } }, 'replay', true);
  if (values.help) return print(io, HELP.replay!);
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError('replay needs one record file: gcb replay episodes/run1.jsonl');
  const maxTicks = values['max-ticks'] === undefined ? undefined : positiveCount(values['max-ticks'], '--max-ticks');
  const { runReplay } = await import('./replay.ts');
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(signalExit(signal));
    stop.abort(signal);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    return await runReplay({
      file,
      ...(values.url === undefined ? {} : { client: client(values, io) }),
      ...(values.record === undefined ? {} : { record: values.record }),
      ...(maxTicks === undefined ? {} : { maxTicks }),
      signal: stop.signal,
      out: io.out,
      err: io.err,
    });
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

/** A flag's whole number of 1 or more. */
function positiveCount(text: string, flag: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1)
    throw new UsageError(`${flag} takes a whole number of 1 or more, not ${JSON.stringify(text)}`);
  return value;
}

function parseBatchFile(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the batch file is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError('the batch file must hold a JSON array of {"name": ..., "args": {...}}');
  return parsed;
}

function renderBatch(commands: unknown[], result: { results: Array<Record<string, unknown>>; completed: number; failed: number; skipped: number }): string {
  const lines = result.results.map((item, index) => {
    const name = String((commands[index] as { name?: unknown } | undefined)?.name ?? '?');
    if (item.skipped === true) return `[${index}] ${name}: skipped`;
    if (isRecord(item.error)) return `[${index}] ${name}: ${String(item.error.code)}: ${String(item.error.message)}`;
    return `[${index}] ${name}: ok\n${renderValue(item.result, 2)}`;
  });
  lines.push(`${result.completed} completed, ${result.failed} failed, ${result.skipped} skipped`);
  return `${lines.join('\n')}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function token(argv: string[], io: Io): ExitCode {
  const { values } = parse(
    argv,
    { 'config-dir': CONNECT_OPTIONS['config-dir'], json: CONNECT_OPTIONS.json, help: CONNECT_OPTIONS.help, new: { type: 'boolean' } },
    'token',
  );
  if (values.help) return print(io, HELP.token!);
  if (values.new) {
    // decisions §10/§11: a strong agent token to paste into agents.json, with its sha256 for a
    // file that should hold no secret. Made here; no bridge or config dir is needed.
    const fresh = newAgentToken();
    return print(io, values.json ? `${JSON.stringify(fresh)}\n` : `token:        ${fresh.token}\ntoken_sha256: ${fresh.token_sha256}\n`);
  }
  const found = readBridgeConfig(values['config-dir']);
  if (found.token === undefined) throw new ClientConfigError(`${found.path} has no [Bridge] token`);
  // Raw unless asked: `export GCB_TOKEN=$(gcb token)` must get the token alone.
  return print(io, values.json ? `${JSON.stringify({ token: found.token, url: found.url })}\n` : `${found.token}\n`);
}

/** Follows GET /events until Ctrl-C (SIGINT or SIGTERM: exit 0); src/cli/events.ts. */
async function events(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parse(argv, { ...CONNECT_OPTIONS, kinds: { type: 'string' }, since: { type: 'string' } }, 'events');
  if (values.help) return print(io, HELP.events!);
  const json = wantJson(io, values.json);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    await followEvents({ client: client(values, io), kinds: values.kinds, since: values.since, json, out: io.out, err: io.err, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  return EXIT.OK;
}

async function mcp(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parse(
    argv,
    {
      'config-dir': CONNECT_OPTIONS['config-dir'],
      url: CONNECT_OPTIONS.url,
      help: CONNECT_OPTIONS.help,
      'tool-prefix': { type: 'string' },
      http: { type: 'boolean' },
      port: { type: 'string' },
    },
    'mcp',
  );
  if (values.help) return print(io, HELP.mcp!);
  const prefix = values['tool-prefix'] ?? DEFAULT_TOOL_PREFIX;
  if (!TOOL_PREFIX_PATTERN.test(prefix)) throw new UsageError(`--tool-prefix '${prefix}' is not allowed: at most 32 letters, digits, _ or -`);
  // The MCP SDK loads only here: the other subcommands start faster without it.
  const [{ DEFAULT_MCP_PORT, startMcpHttpServer }, { serveStdio }, { Credential }, { toolsFor }] = await Promise.all([
    import('../mcp/http.ts'),
    import('../mcp/stdio.ts'),
    import('../mcp/credential.ts'),
    import('../mcp/tools.ts'),
  ]);
  const onRetry = (event: RetryEvent) => process.stderr.write(`gcb mcp: bridge busy, retry ${event.retry} in ${event.delayMs} ms\n`);

  if (!values.http) {
    if (values.port !== undefined) throw new UsageError('--port is for --http');
    const bridge = connect(values, { env: io.env, onRetry });
    // Read at start: a wrong token or a bridge that is not running fails here, visibly, with its exit code.
    const credential = await Credential.open(bridge);
    await serveStdio({ credential, prefix, onClose: () => process.exit(EXIT.OK) });
    process.stderr.write(
      `gcb mcp: ${toolsFor(credential.view.capabilities, prefix, credential.mask).length} tools over stdio for the bridge at ${bridge.url}\n`,
    );
    return undefined;
  }

  let port = DEFAULT_MCP_PORT;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port ${values.port} is not allowed: an integer from 1 to 65535 (0: any free port)`);
  }
  // Sessions bring their own tokens; a default one, when there is one, checks the bridge at start.
  const { url, token } = resolveConnection(values, io.env, true);
  let tools = '';
  if (token !== undefined) {
    try {
      tools = `, ${(await new BridgeClient({ url, token }).capabilities()).commands.length + 1} tools`;
    } catch (err) {
      // A refused default token is no reason to stop: in multi-agent mode only agents' tokens work.
      if (!(err instanceof BridgeCallError && err.code === 'UNAUTHORIZED')) throw err;
    }
  } else {
    await probe(url);
  }
  const server = await startMcpHttpServer({ bridgeUrl: url, port, prefix, clientOptions: { onRetry } });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(EXIT.OK),
      () => process.exit(EXIT.INTERNAL),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // After the handlers: whoever reads this line may signal at once.
  process.stdout.write(`gcb mcp listening on ${server.url} (bridge ${url}${tools})\n`);
  return undefined;
}

/** Without a token, a 401 envelope from GET /capabilities still proves a bridge is there. */
async function probe(url: string): Promise<void> {
  try {
    await new BridgeClient({ url, token: 'probe' }).capabilities();
  } catch (err) {
    if (err instanceof BridgeCallError) return;
    throw err;
  }
}

function client(values: { 'config-dir'?: string | undefined; url?: string | undefined }, io: Io): BridgeClient {
  return connect(values, {
    env: io.env,
    onRetry: (event) => io.err(`gcb: bridge busy, retry ${event.retry} in ${(event.delayMs / 1000).toFixed(1)} s\n`),
  });
}

function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, sub: string, positionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
  } catch (err) {
    throw new UsageError(`${(err as Error).message.split('\n')[0]} (gcb ${sub} --help)`);
  }
}

function wantJson(io: Io, flag: boolean | undefined): boolean {
  io.json = flag === true || !io.isTTY;
  return io.json;
}

/** --out: an image result is written decoded; anything else as JSON. What is printed says where it went. */
function writeOut(path: string, result: unknown): unknown {
  if (typeof result === 'object' && result !== null && typeof (result as Record<string, unknown>).base64 === 'string') {
    const { base64, ...rest } = result as Record<string, unknown>;
    writeFileSync(path, Buffer.from(base64 as string, 'base64'));
    return { ...rest, written_to: path };
  }
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return { written_to: path };
}

function print(io: Io, text: string): number {
  io.out(text);
  return EXIT.OK;
}

function fail(err: unknown, io: Io): number {
  if (err instanceof BridgeCallError) {
    io.err(`gcb: ${renderError(err).replaceAll('\n', '\n     ')}\n`);
    // For programs: the envelope itself on stdout, when stdout is JSON.
    if (io.json) io.out(`${JSON.stringify(err)}\n`);
    return EXIT_BY_CODE[err.code] ?? EXIT.INTERNAL;
  }
  io.err(`gcb: ${(err as Error)?.message ?? String(err)}\n`);
  if (err instanceof UsageError) return EXIT.USAGE;
  if (err instanceof ClientConfigError) return EXIT.CONFIG;
  if (err instanceof BridgeConnectionError) return EXIT.UNREACHABLE;
  if (io.env.GCB_DEBUG) io.err(`${(err as Error)?.stack ?? ''}\n`);
  return EXIT.INTERNAL;
}
