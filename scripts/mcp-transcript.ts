// `node --import tsx scripts/mcp-transcript.ts`: the transcript of docs/mcp.md, taken from a run. It
// starts a lockstep bridge in multi-agent mode (a god and a faction player, pvp) in a temp dir,
// runs `gcb mcp` over stdio with the player's token under the official SDK's client, and prints
// every JSON-RPC message both ways: the player lists its tools, reads world://state, subscribes to
// world://events and world://state, steps 1500 ticks asking for progress, is told the resources
// changed, and reads the events. Long payloads are shortened where marked (…); nothing else is edited.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GCB = join(ROOT, 'bin', 'gcb.js');
const PLAYER_TOKEN = 'player-ares-token-0123456789-ABCDEFGHJK';
const GOD_TOKEN = 'god-zeus-token-0123456789-ABCDEFGHJKLMN';
/** About 1.5 s on the sandbox: long enough for a few progress notifications. */
const STEP_TICKS = 1500;

/** Strings longer than this are cut, and a tool shows only its name, so a page can hold the transcript. */
const LONGEST_STRING = 160;

function shorten(value: unknown): unknown {
  if (typeof value === 'string') return value.length > LONGEST_STRING ? `${value.slice(0, LONGEST_STRING)}…` : value;
  if (Array.isArray(value)) return value.map(shorten);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  // A tool is shown by its name: its description, schemas and annotations run to pages.
  if (typeof object.name === 'string' && 'inputSchema' in object) return { name: object.name, '…': '' };
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, shorten(v)]));
}

/** A transport that prints each message it carries, then hands it on. */
class Recording implements Transport {
  readonly #inner: Transport;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message) => {
      print('←', message);
      this.onmessage?.(message);
    };
  }

  start = () => this.#inner.start();
  close = () => this.#inner.close();
  send(message: JSONRPCMessage): Promise<void> {
    print('→', message);
    return this.#inner.send(message);
  }
}

function print(direction: '→' | '←', message: JSONRPCMessage): void {
  process.stdout.write(`${direction} ${JSON.stringify(shorten(message)).replaceAll(',"…":""}', ',…}')}\n`);
}

/** `gcb serve` in `dir`, on any free port; resolves with its URL once it listens. */
async function serve(dir: string): Promise<{ url: string; stop(): void }> {
  const bridge = spawn(process.execPath, [GCB, 'serve', '--config-dir', dir, '--port', '0', '--lockstep'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines = createInterface({ input: bridge.stdout });
  for await (const line of lines) {
    const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
    if (url !== undefined) return { url, stop: () => bridge.kill('SIGTERM') };
  }
  throw new Error('gcb serve ended before it listened');
}

const dir = mkdtempSync(join(tmpdir(), 'gcb-transcript-'));
writeFileSync(join(dir, 'bridge.toml'), `enabled = true\n[Bridge]\ntoken = "${'T'.repeat(24)}${'e'.repeat(24)}"\n`, { mode: 0o600 });
writeFileSync(
  join(dir, 'agents.json'),
  JSON.stringify({
    scenario: 'pvp',
    agents: [
      { id: 'zeus', token: GOD_TOKEN, role: 'god' },
      { id: 'ares', token: PLAYER_TOKEN, role: 'faction_player', kingdom_claim: 'auto:0' },
    ],
  }),
);
const bridge = await serve(dir);
try {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GCB, 'mcp', '--url', bridge.url],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', GCB_TOKEN: PLAYER_TOKEN },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'transcript', version: '1.0.0' });
  const updated: string[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/resources/updated') updated.push(String(notification.params?.uri));
  };
  await client.connect(new Recording(transport));
  await client.listTools();
  await client.readResource({ uri: 'world://state' });
  await client.subscribeResource({ uri: 'world://events' });
  await client.subscribeResource({ uri: 'world://state' });
  await client.callTool({ name: 'worldbox_step', arguments: { ticks: STEP_TICKS } }, undefined, { onprogress: () => {} });
  // Updates are batched once a second: wait for those of the step's last ticks, then read the events.
  updated.length = 0;
  const deadline = Date.now() + 5_000;
  while (!(updated.includes('world://events') && updated.includes('world://state')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await client.readResource({ uri: 'world://events' });
  await client.close();
} finally {
  bridge.stop();
  rmSync(dir, { recursive: true, force: true });
}
