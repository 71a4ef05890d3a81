// Starts a real bridge on port 0 in a fresh config dir, with logs captured, and closes it on teardown.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Test } from 'tap';
import { startBridge, type BridgeHandle, type BridgeOptions } from '../../src/bridge.ts';
import { fixture } from './paths.ts';

export const TINY_GAME = fixture('tiny-game.ts');

export interface TestBridge {
  bridge: BridgeHandle;
  token: string;
  configDir: string;
  /** Every log line, parsed. */
  logs: Array<Record<string, unknown>>;
  /** Raw log text, for token scans. */
  logText(): string;
  /** fetch against the bridge with the token (unless headers say otherwise). */
  fetch(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
  /** POST /cmd and parse the envelope. */
  cmd(
    name: string,
    args?: unknown,
    init?: { headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** Removed when the test process exits: a full run made ~500 of them, and repeated runs filled /tmp. */
const tempDirs: string[] = [];
process.once('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'gcb-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export async function startTestBridge(t: Test, options: BridgeOptions = {}): Promise<TestBridge> {
  const configDir = options.configDir ?? tempDir();
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: 'debug', base: undefined }, destination);
  // One pool thread unless a test asks for more: each thread costs ~120 ms of CPU to start, and the
  // suite starts hundreds of bridges on 2 cores. Tests of the pool's own behaviour set poolThreads.
  const bridge = await startBridge({ game: TINY_GAME, port: 0, poolThreads: 1, ...options, configDir, logger });
  t.teardown(() => bridge.close());
  const token = bridge.token;
  const fetchBridge = (path: string, init: RequestInit & { auth?: boolean } = {}) => {
    const headers = new Headers(init.headers);
    if (init.auth !== false && !headers.has('authorization') && !headers.has('x-wb-token')) headers.set('authorization', `Bearer ${token}`);
    return fetch(`${bridge.url}${path}`, { ...init, headers });
  };
  return {
    bridge,
    token,
    configDir,
    get logs() {
      return chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    logText: () => chunks.join(''),
    fetch: fetchBridge,
    async cmd(name, args, init = {}) {
      const response = await fetchBridge('/cmd', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...init.headers },
        body: JSON.stringify(args === undefined ? { name } : { name, args }),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      return { status: response.status, body: await response.json(), headers: response.headers };
    },
  };
}

/** Resolves when `predicate` holds, polling every 10 ms; rejects after `ms`. */
export async function until(predicate: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Writes a bridge.toml (with a fixed token) before the bridge starts, for settings tests need. */
export function writeConfig(
  dir: string,
  settings: {
    enabled?: boolean;
    maxConcurrent?: number;
    fps?: number;
    suppressStartupWindow?: boolean;
    maxBodyBytes?: number;
    clock?: 'realtime' | 'lockstep';
    maxSavepoints?: number;
  } = {},
): string {
  const token = 'T'.repeat(24) + 'e'.repeat(24);
  writeFileSync(
    join(dir, 'bridge.toml'),
    `enabled = ${settings.enabled ?? true}
[Bridge]
token = "${token}"
max_concurrent_requests = ${settings.maxConcurrent ?? 8}
max_body_bytes = ${settings.maxBodyBytes ?? 1048576}
[Game]
fps = ${settings.fps ?? 60}
suppress_startup_window = ${settings.suppressStartupWindow ?? true}
${settings.clock === undefined ? '' : `clock = "${settings.clock}"\n`}${settings.maxSavepoints === undefined ? '' : `max_savepoints = ${settings.maxSavepoints}\n`}`,
    { mode: 0o600 }, // a config readable by others is warned about (decisions §11): tests keep logs quiet
  );
  return token;
}

/** A raw HTTP/1.1 request, for headers fetch will not send (Host) and bodies it will not frame. */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string | number>;
    body?: string | Buffer;
    chunks?: Buffer[];
    /** With chunks: never send the body's end, as for a body the server must refuse while it streams. */
    endless?: boolean;
  },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        agent: false,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers ?? {},
        setHost: !(options.headers && Object.keys(options.headers).some((h) => h.toLowerCase() === 'host')),
      },
      (res) => {
        responded = true;
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString() }));
      },
    );
    // The server may answer (a refused body) and close while chunks are still being written: a
    // write error after the answer is the close the test expects, not a failure.
    req.on('error', (err) => {
      if (!responded) reject(err);
    });
    if (options.chunks) {
      // Paced like a real streaming client: a burst written before the answer is read can be
      // reset by the server's close, which would hide the answer the test is about.
      const chunks = [...options.chunks];
      const writeNext = () => {
        const chunk = chunks.shift();
        if (responded) return;
        if (chunk === undefined) {
          // Ending a body the server has already refused races its close (EPIPE before the answer
          // is read, seen at load 15); an endless body waits for the answer, 30 s at most.
          if (!options.endless) return void req.end();
          const giveUp = setTimeout(() => req.destroy(new Error('no answer to a body that never ended (30 s)')), 30_000);
          req.once('response', () => clearTimeout(giveUp));
          return;
        }
        req.write(chunk, () => setTimeout(writeNext, 20));
      };
      writeNext();
    } else {
      req.end(options.body);
    }
  });
}
