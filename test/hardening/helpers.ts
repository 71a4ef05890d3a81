// Shared by the hardening tests (and bench:soak / bench:fuzz): raw requests, bounded concurrency,
// a quiet bridge for the long loops, prototype fingerprints and garbage collection on demand.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Test } from 'tap';
import { startBridge, type BridgeHandle, type BridgeOptions } from '../../src/bridge.ts';
import { tempDir } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';

export const HARDENING_COMMANDS = fixture('hardening-commands.ts');
export const FRAGILE_GAME = fixture('hardening-fragile-game.ts');

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: any;
}

/** POST /cmd with a body sent byte for byte (raw JSON text, invalid UTF-8, anything). */
export async function postRaw(
  target: { url: string; token: string },
  body: string | Uint8Array,
  options: { contentType?: string | null; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, ...options.headers };
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  // A Uint8Array body gets no Content-Type from fetch, so "none" really is none.
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const response = await fetch(`${target.url}/cmd`, { method: 'POST', headers, body: bytes, ...(options.signal ? { signal: options.signal } : {}) });
  return toReply(response);
}

export async function toReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Own property names (and their descriptors' shapes) of the built-in prototypes a parser could pollute. */
export function prototypeFingerprint(): string {
  const shape = (o: object) =>
    Reflect.ownKeys(o)
      .map((k) => `${String(k)}:${typeof Object.getOwnPropertyDescriptor(o, k)?.value}`)
      .sort()
      .join(',');
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map(shape).join('|');
}

let gcFunction: (() => void) | undefined;
/** A full GC, without --expose-gc on the command line. */
export function gc(): void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
  gcFunction();
}

/** Counts of this process's active resources by type (sockets, timers, ...). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

export interface QuietBridge {
  bridge: BridgeHandle;
  token: string;
  url: string;
  configDir: string;
  /** Log lines seen (not kept: long loops would otherwise grow the heap they measure). */
  lineCount(): number;
  /** The lines that were warnings or worse, parsed. */
  kept: Array<Record<string, unknown>>;
}

/** A bridge whose log lines are counted and dropped (warnings and errors are kept). */
export async function startQuietBridge(t: Test, options: BridgeOptions = {}): Promise<QuietBridge> {
  const configDir = options.configDir ?? tempDir('gcb-hard-');
  let lines = 0;
  const kept: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        lines++;
        if (line.includes('"level":40') || line.includes('"level":50') || line.includes('"level":60')) kept.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const logger = pino({ level: 'info', base: undefined }, destination);
  // One pool thread unless a test asks for more (test/helpers/bridge.ts says why).
  const bridge = await startBridge({ port: 0, poolThreads: 1, ...options, configDir, logger });
  t.teardown(() => bridge.close());
  return { bridge, token: bridge.token, url: bridge.url, configDir, lineCount: () => lines, kept };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
