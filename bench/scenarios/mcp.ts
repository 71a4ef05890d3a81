// The agent's own door (decisions §14), `--only mcp`: `gcb mcp --http` in a process of its own in
// front of a sandbox bridge.
// - A tool call's overhead: `worldbox_get_world_state` through the SDK's client and gcb mcp, against
//   the same command over POST /cmd on a kept-alive connection, one after another, in alternating
//   rounds: the ratio of the p50s, on the realtime clock agents play on (target ≤ 1.5×); and the
//   same on the lockstep clock, where no frame is waited for, so the ratio is the MCP hop's own
//   cost beside the bridge's fastest answer (no target).
// - notifications/resources/updated: a session subscribed to world://events; another client's
//   command makes an event at uneven intervals (0.2 to 0.8 s, so that the once-a-second batching
//   is met); the time from sending the command to the notification, p99 (target ≤ 1.1 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { keptAliveClient, percentile } from '../lib/kept-alive.ts';
import { startBridgeProcess } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const TOKEN = 'm'.repeat(48);
const OVERHEAD_TARGET = 1.5;
const UPDATE_TARGET_MS = 1_100;
const GCB = new URL('../../bin/gcb.js', import.meta.url).pathname;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST /cmd on one kept-alive connection; resolves with the round trip in ms, rejects unless 200. */
function poster(url: string): { post(name: string, args?: unknown): Promise<number>; close(): void } {
  const client = keptAliveClient(url, TOKEN);
  return {
    post: async (name, args = {}) => {
      const answer = await client.post(name, args);
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}`);
      return answer.ms;
    },
    close: () => client.close(),
  };
}

/** `gcb mcp --http` on a free port; resolves with its URL once it prints its line. */
function startMcp(bridgeUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [GCB, 'mcp', '--http', '--port', '0', '--url', bridgeUrl], {
    env: { PATH: process.env.PATH ?? '', GCB_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`gcb mcp --http exited ${code}: ${out}`)));
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

interface Door {
  bridge: Awaited<ReturnType<typeof startBridgeProcess>>;
  mcp: { url: string; child: ChildProcess };
  direct: ReturnType<typeof poster>;
  client: Client;
  close(): Promise<void>;
}

async function door(clock: 'realtime' | 'lockstep'): Promise<Door> {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-mcp-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${TOKEN}"\n[Game]\nclock = "${clock}"\n`, { mode: 0o600 });
  const bridge = await startBridgeProcess({ configDir: dir });
  const mcp = await startMcp(bridge.url);
  const direct = poster(bridge.url);
  const client = await connect(mcp.url);
  return {
    bridge,
    mcp,
    direct,
    client,
    close: async () => {
      await client.close();
      direct.close();
      mcp.child.kill('SIGTERM');
      await bridge.stop();
    },
  };
}

/** Alternating rounds of the same command through gcb mcp and over POST /cmd, after a warm-up of each. */
async function overhead(at: Door, quick: boolean): Promise<{ viaMcp: number[]; viaCmd: number[] }> {
  // --quick: 60 calls a side, enough for a p50 (the realtime calls wait a frame each).
  const rounds = quick ? 2 : 10;
  const perRound = quick ? 30 : 200;
  const viaMcp: number[] = [];
  const viaCmd: number[] = [];
  const call = async () => {
    const t0 = performance.now();
    await at.client.callTool({ name: 'worldbox_get_world_state', arguments: {} });
    return performance.now() - t0;
  };
  for (let i = 0; i < (quick ? 10 : perRound); i++) {
    await call();
    await at.direct.post('get_world_state');
  }
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < perRound; i++) viaMcp.push(await call());
    for (let i = 0; i < perRound; i++) viaCmd.push(await at.direct.post('get_world_state'));
  }
  return { viaMcp, viaCmd };
}

function overheadRow(clock: string, { viaMcp, viaCmd }: { viaMcp: number[]; viaCmd: number[] }, target: boolean): Row {
  const ratio = percentile(viaMcp, 50) / percentile(viaCmd, 50);
  return {
    scenario: `MCP tool call against POST /cmd (get_world_state, ${clock})`,
    value: percentile(viaMcp, 50),
    unit: 'ms p50 through gcb mcp',
    p50: percentile(viaMcp, 50),
    p99: percentile(viaMcp, 99),
    ratio,
    ...(target ? { target: `p50 ≤ ${OVERHEAD_TARGET}× POST /cmd`, ok: ratio <= OVERHEAD_TARGET } : {}),
    note: `POST /cmd p50 ${percentile(viaCmd, 50).toFixed(2)} ms, p99 ${percentile(viaCmd, 99).toFixed(2)} ms; ${viaMcp.length} calls each`,
  };
}

/** From the command that makes an event to notifications/resources/updated for world://events. */
async function updates(at: Door, quick: boolean): Promise<{ latencies: number[]; events: number; notifications: number }> {
  const watcher = await connect(at.mcp.url);
  const arrivals: number[] = [];
  watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void arrivals.push(performance.now()));
  await watcher.subscribeResource({ uri: 'world://events' });
  await watcher.readResource({ uri: 'world://events' });
  const sent: number[] = [];
  const events = quick ? 6 : 40;
  for (let i = 0; i < events; i++) {
    sent.push(performance.now());
    await at.direct.post('pause');
    await sleep(200 + Math.random() * 600);
    // A read moves the session's cursor past the event, as a client does when told.
    await watcher.readResource({ uri: 'world://events' });
  }
  await sleep(1_500);
  await watcher.close();
  const latencies = sent.map((at) => (arrivals.find((arrived) => arrived >= at) ?? NaN) - at).filter((ms) => !Number.isNaN(ms));
  return { latencies, events, notifications: arrivals.length };
}

export async function mcpScenario(rows: Row[], raw: Record<string, unknown>, quick = false): Promise<void> {
  const realtime = await door('realtime');
  let played: Awaited<ReturnType<typeof overhead>>;
  let updated: Awaited<ReturnType<typeof updates>>;
  try {
    played = await overhead(realtime, quick);
    updated = await updates(realtime, quick);
  } finally {
    await realtime.close();
  }
  const lockstep = await door('lockstep');
  let bare: Awaited<ReturnType<typeof overhead>>;
  try {
    bare = await overhead(lockstep, quick);
  } finally {
    await lockstep.close();
  }
  rows.push(overheadRow('realtime', played, true));
  rows.push(overheadRow('lockstep', bare, false));
  const { latencies, events, notifications } = updated;
  rows.push({
    scenario: 'resources/updated after an event (world://events)',
    value: percentile(latencies, 99),
    unit: 'ms p99',
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    target: `p99 ≤ ${UPDATE_TARGET_MS} ms (batched once a second)`,
    ok: latencies.length === events && percentile(latencies, 99) <= UPDATE_TARGET_MS,
    note: `${events} events 0.2–0.8 s apart, ${notifications} notifications`,
  });
  raw.mcp = { realtime: played, lockstep: bare, updates: updated };
}
