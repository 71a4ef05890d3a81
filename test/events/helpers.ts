// Event-layer test helpers: a bridge on the event game with the event settings a test needs, and
// an SSE client on a raw socket (headers fetch will not send, reading that can be paused).
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { BridgeOptions } from '../../src/bridge.ts';
import { startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.ts';
import { fixture } from '../helpers/paths.ts';

export const EVENT_GAME = fixture('event-game.ts');
export const EVENT_COMMANDS = fixture('event-commands.ts');
export const TOKEN = 'E'.repeat(24) + 'v'.repeat(24);

export interface EventSettings {
  eventHistory?: number;
  maxEventStreams?: number;
  maxConcurrent?: number;
  enabled?: boolean;
}

export function writeEventConfig(dir: string, settings: EventSettings = {}): void {
  writeFileSync(
    join(dir, 'bridge.toml'),
    `enabled = ${settings.enabled ?? true}
[Bridge]
token = "${TOKEN}"
max_concurrent_requests = ${settings.maxConcurrent ?? 8}
event_history = ${settings.eventHistory ?? 10000}
max_event_streams = ${settings.maxEventStreams ?? 16}
`,
  );
}

/** A legacy-mode bridge on the event game with its emit_events / kill_game_thread commands. */
export async function startEventBridge(t: Test, settings: EventSettings = {}, options: BridgeOptions = {}): Promise<TestBridge> {
  const configDir = tempDir('gcb-events-');
  writeEventConfig(configDir, settings);
  return startTestBridge(t, { game: EVENT_GAME, commandModules: [EVENT_COMMANDS], ...options, configDir });
}

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** A comment line (`: ...`). */
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body of a non-200 answer. */
  body: string;
  frames: SseFrame[];
  /** Parsed data of the event frames (not comments, not gap). */
  events(): Array<Record<string, any>>;
  /** Resolves with the first frame (from the start) that matches; rejects after `ms`. */
  waitFor(match: (frame: SseFrame) => boolean, ms?: number, what?: string): Promise<SseFrame>;
  /** Resolves when the server ends the response; `clean` is false when the connection broke. */
  ended: Promise<{ clean: boolean }>;
  close(): void;
  request: ClientRequest;
  response: IncomingMessage | null;
}

/** Opens GET `path` as an SSE stream. `read: false`: never read the body (a stalled client). */
export function openSse(
  port: number,
  path: string,
  options: { token?: string | null; headers?: Record<string, string>; read?: boolean } = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? TOKEN : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const hasHost = Object.keys(headers).some((h) => h.toLowerCase() === 'host');
    const request = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false, setHost: !hasHost });
    request.on('error', reject);
    request.on('response', (response) => {
      const frames: SseFrame[] = [];
      const watchers = new Set<() => boolean>();
      let text = '';
      let body = '';
      let endResolve!: (value: { clean: boolean }) => void;
      const ended = new Promise<{ clean: boolean }>((done) => (endResolve = done));
      response.on('end', () => endResolve({ clean: true }));
      response.on('error', () => endResolve({ clean: false }));
      response.on('aborted', () => endResolve({ clean: false }));
      request.on('close', () => endResolve({ clean: response.complete }));
      const client: SseClient = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        get body() {
          return body;
        },
        frames,
        events: () => frames.filter((f) => f.data !== undefined && f.event !== 'gap').map((f) => JSON.parse(f.data!) as Record<string, any>),
        waitFor(match, ms = 10_000, what = 'a frame') {
          return new Promise((done, fail) => {
            const check = () => {
              const found = frames.find(match);
              if (found) {
                clearTimeout(timer);
                watchers.delete(check);
                done(found);
                return true;
              }
              return false;
            };
            const timer = setTimeout(() => fail(new Error(`timed out waiting for ${what}; got ${JSON.stringify(frames.slice(-5))}`)), ms);
            if (!check()) watchers.add(check);
          });
        },
        ended,
        close: () => request.destroy(),
        request,
        response,
      };
      if (options.read === false) {
        response.pause();
        resolve(client);
        return;
      }
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (client.status !== 200) {
          body += chunk;
          return;
        }
        text += chunk;
        let cut: number;
        while ((cut = text.indexOf('\n\n')) !== -1) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const frame: SseFrame = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === '') frame.comment = value;
            else if (field === 'id' || field === 'event') frame[field] = value;
            else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          }
          frames.push(frame);
        }
        for (const watcher of [...watchers]) watcher();
      });
      resolve(client);
    });
    request.end();
  });
}
