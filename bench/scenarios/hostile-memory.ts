// Hostile memory (decisions §13), `--only hostile-memory`: a memory audit's three attacks, one after
// another, by one faction player (ares) against one bridge in multi-agent mode with default settings:
// - unknown commands whose args fill the body to just under max_body_bytes (1 MiB by default);
// - keyed 840 KB reads: recv_messages {since_seq: 0, max: 500} over its own inbox of 200 messages
//   of 4 KiB, each with a fresh Idempotency-Key;
// - a flood of keyed small requests (whoami and a short send_message to itself, a fresh key each).
// Meanwhile another player (athena) sends whoami at a steady rate. Per attack: the bridge's RSS
// growth (VmRSS from /proc, the peak during the attack less the idle figure before it), athena's
// p99 in ms and in frames, and whether the bridge still answers /health after. Goal: at most 150 MB,
// p99 within 3 frames, nothing crashes. Bounded: 6 hostile connections and at most 2 polite ones,
// loopback only, each attack 20 s (2 s --quick, so the whole --quick run stays under 2 minutes),
// ended early when RSS passes 1.5 GB. A bridge that crashed or was stopped at that cap is replaced
// by a fresh one for the next attack.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startBridgeProcess, type BridgeProcess, type LoadOptions, type LoadResult } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const FPS = 60;
const FRAME_MS = 1000 / FPS;
export const GOD = 'zeus-token-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';
export const HOSTILE = 'ares-token-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';
const POLITE = 'athena-token-0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
const HOSTILE_CONNECTIONS = 6;
const POLITE_CONNECTIONS = 2;
/** One polite whoami this often. */
const POLITE_INTERVAL_MS = 20;
/** The bridge's default max_body_bytes (decisions §5), less room for the request's own JSON. */
const BODY_BYTES = 1024 * 1024 - 1024;
/** Past this RSS the attack stops: today's bridge would grow until the machine's memory ran out. */
export const RSS_CAP_BYTES = 1.5 * 2 ** 30;
const GOAL_MB = 150;
const MESSAGE_BYTES = 4096;
const INBOX = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const cmd = (name: string, args: unknown = {}) => JSON.stringify({ name, args });

export function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-hostile-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'h'.repeat(48)}"\n`);
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      agents: [
        { id: 'zeus', token: GOD, role: 'god' },
        { id: 'ares', token: HOSTILE, role: 'faction_player' },
        { id: 'athena', token: POLITE, role: 'faction_player' },
      ],
    }),
  );
  return dir;
}

/** VmRSS of process `pid` in bytes, or null once it is gone. */
export function vmRssBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Polite {
  latencies: number[];
  failed: number;
  statuses: Record<string, number>;
}

/** One whoami; its status, or 0 when it failed on the way (refused, reset, 10 s without an answer). */
function whoami(url: string, agent: Agent): Promise<number> {
  const body = cmd('whoami');
  return new Promise((resolve) => {
    const req = request(`${url}/cmd`, { method: 'POST', agent, headers: { ...json(POLITE), 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * athena: a whoami every POLITE_INTERVAL_MS until `running()` turns false, at most
 * POLITE_CONNECTIONS in flight. Latency counts from when the request was due, so a stall shows in
 * every request it held back, not only in the one it caught.
 */
export async function politeAgent(url: string, running: () => boolean): Promise<Polite> {
  const agent = new Agent({ keepAlive: true, maxSockets: POLITE_CONNECTIONS });
  const result: Polite = { latencies: [], failed: 0, statuses: {} };
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  for (let i = 0; running(); i++) {
    const due = start + i * POLITE_INTERVAL_MS;
    if (due > performance.now()) await sleep(due - performance.now());
    while (inFlight.size >= POLITE_CONNECTIONS) await Promise.race(inFlight);
    const sent: Promise<void> = whoami(url, agent).then((status) => {
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
      if (status === 200) result.latencies.push(performance.now() - due);
      else result.failed++;
      inFlight.delete(sent);
    });
    inFlight.add(sent);
  }
  await Promise.all(inFlight);
  agent.destroy();
  return result;
}

async function healthy(bridge: BridgeProcess): Promise<boolean> {
  try {
    const res = await fetch(`${bridge.url}/health`, { headers: { authorization: `Bearer ${GOD}` }, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The bridge after a full GC, settled: its idle RSS. */
async function idleRss(bridge: BridgeProcess): Promise<number | null> {
  await Promise.race([bridge.request('gc').catch(() => {}), sleep(10_000)]);
  await sleep(500);
  return vmRssBytes(bridge.child.pid);
}

async function post(url: string, token: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number }> {
  const res = await fetch(`${url}/cmd`, { method: 'POST', headers: { ...json(token), ...headers }, body, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
}

/**
 * Args of up to `bytes` as JSON, made of strings of 128 characters in objects of at most 32 keys and
 * arrays of at most 16 items, 3 deep: each piece is small enough for an audit record to keep it
 * whole, as an attacker would shape them. One 1 MB string would be cut to a note in the record.
 */
export function bulkyArgs(bytes: number): Record<string, Record<string, string[]>> {
  const args: Record<string, Record<string, string[]>> = {};
  // Room for the command's name and the JSON around the args.
  let size = 64;
  for (let outer = 0; outer < 32; outer++) {
    for (let inner = 0; inner < 32; inner++) {
      const strings = Array.from({ length: 16 }, (_, i) => `${outer}.${inner}.${i}.`.padEnd(128, 'x'));
      const added = JSON.stringify(strings).length + `"k${inner}":,`.length + (inner === 0 ? `"k${outer}":{},`.length : 0);
      if (size + added > bytes) return args;
      (args[`k${outer}`] ??= {})[`k${inner}`] = strings;
      size += added;
    }
  }
  return args;
}

interface Attack {
  name: string;
  /** Run once before the idle figure is taken: what the attack needs in place. */
  prepare?(url: string): Promise<string>;
  /** The hostile requests, to POST /cmd. */
  load(): Omit<LoadOptions, 'url' | 'connections' | 'duration'>;
  /** The status they get when the attack lands (a different one means it measured nothing). */
  expect: number;
}

const ATTACKS: Attack[] = [
  {
    name: 'unknown commands with 1 MB args',
    load: () => ({ method: 'POST', headers: json(HOSTILE), body: cmd('no_such_command', bulkyArgs(BODY_BYTES)) }),
    expect: 404,
  },
  {
    name: 'keyed 840 KB reads (recv_messages, a fresh key each)',
    prepare: async (url) => {
      // Its own inbox, full: 200 messages of 4 KiB, 4 sent at a time.
      const content = 'm'.repeat(MESSAGE_BYTES);
      for (let i = 0; i < INBOX; i += 4) await Promise.all(Array.from({ length: 4 }, () => post(url, HOSTILE, cmd('send_message', { to: 'ares', content }))));
      const read = await post(url, HOSTILE, cmd('recv_messages', { since_seq: 0, max: 500 }));
      return `answers of ${(read.bytes / 1024).toFixed(0)} KB`;
    },
    load: () => ({
      method: 'POST',
      headers: { ...json(HOSTILE), 'idempotency-key': 'hostile-read-[<id>]' },
      body: cmd('recv_messages', { since_seq: 0, max: 500 }),
      idReplacement: true,
    }),
    expect: 200,
  },
  {
    name: 'a flood of keyed small requests (whoami, send_message)',
    load: () => ({
      requests: [
        { method: 'POST', path: '/cmd', headers: { ...json(HOSTILE), 'idempotency-key': 'hostile-who-[<id>]' }, body: cmd('whoami') },
        {
          method: 'POST',
          path: '/cmd',
          headers: { ...json(HOSTILE), 'idempotency-key': 'hostile-msg-[<id>]' },
          body: cmd('send_message', { to: 'ares', content: 'hi' }),
        },
      ],
      idReplacement: true,
    }),
    expect: 200,
  },
];

export interface Outcome {
  idleMb: number;
  peakMb: number;
  growthMb: number;
  polite: Polite;
  p50: number;
  p99: number;
  hostile: LoadResult | { error: string };
  up: boolean;
  /** How the bridge process ended, when it did. */
  exit: string | null;
  /** Seconds into the attack when RSS passed the cap, when it did. */
  cappedAfterS: number | null;
  prepared: string;
  freshBridge: boolean;
  /** The status the hostile requests get when the attack lands. */
  expect: number;
}

async function runAttack(bridge: BridgeProcess, attack: Attack, seconds: number, freshBridge: boolean): Promise<Outcome> {
  const pid = bridge.child.pid;
  const prepared = attack.prepare ? await attack.prepare(bridge.url) : '';
  const idle = (await idleRss(bridge)) ?? NaN;
  let peak = idle;
  let cappedAfterS: number | null = null;
  const stop = new AbortController();
  const onExit = () => stop.abort();
  bridge.child.once('exit', onExit);
  // Gone already (it crashed while being prepared): the attack ends at once instead of hitting a closed port.
  if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) stop.abort();
  const t0 = performance.now();
  const hostile = load({ url: `${bridge.url}/cmd`, connections: HOSTILE_CONNECTIONS, duration: seconds, ...attack.load() }, stop.signal).catch(
    (error: Error) => ({ error: error.message }),
  );
  let attacking = true;
  void hostile.finally(() => (attacking = false));
  const polite = politeAgent(bridge.url, () => attacking);
  while (attacking) {
    const rss = vmRssBytes(pid);
    if (rss === null) break; // the bridge is gone; the load generator stops at its exit
    peak = Math.max(peak, rss);
    if (rss > RSS_CAP_BYTES && cappedAfterS === null) {
      cappedAfterS = (performance.now() - t0) / 1000;
      stop.abort();
    }
    await sleep(100);
  }
  const [hostileResult, politeResult] = await Promise.all([hostile, polite]);
  bridge.child.off('exit', onExit);
  const up = await healthy(bridge);
  const exited = bridge.child.exitCode ?? bridge.child.signalCode;
  return {
    idleMb: idle / 2 ** 20,
    peakMb: peak / 2 ** 20,
    growthMb: (peak - idle) / 2 ** 20,
    polite: politeResult,
    p50: percentile(politeResult.latencies, 50),
    p99: percentile(politeResult.latencies, 99),
    hostile: hostileResult,
    up,
    exit: exited === null ? null : String(exited),
    cappedAfterS,
    prepared,
    freshBridge,
    expect: attack.expect,
  };
}

/** One table row per attack; ok only when every part of the goal holds. */
export function attackRow(name: string, outcome: Outcome): Row {
  const { polite, hostile } = outcome;
  const p99Frames = outcome.p99 / FRAME_MS;
  const requests = polite.latencies.length + polite.failed;
  const state =
    outcome.exit !== null
      ? `the bridge crashed (exit ${outcome.exit})`
      : outcome.up
        ? 'the bridge answered /health after'
        : 'the bridge did not answer /health after';
  // An attack whose requests never got their status (a wrong path, a refused body) measured nothing.
  const landed = !('error' in hostile) && (hostile.statusCodes[outcome.expect] ?? 0) > 0;
  const attackNote =
    'error' in hostile
      ? `hostile load failed: ${hostile.error}`
      : `hostile ${hostile.total} requests (${hostile.rps.toFixed(0)}/s), status ${JSON.stringify(hostile.statusCodes)}` +
        (hostile.errors > 0 ? `, ${hostile.errors} errors` : '') +
        (landed ? '' : `, none got ${outcome.expect}: the attack did not land`);
  return {
    scenario: `hostile memory: ${name}`,
    value: outcome.growthMb,
    unit: 'MB RSS over idle',
    p50: outcome.p50,
    p99: outcome.p99,
    target: `≤ ${GOAL_MB} MB; polite p99 ≤ 3 frames (${(3 * FRAME_MS).toFixed(0)} ms); stays up`,
    ok: landed && outcome.growthMb <= GOAL_MB && p99Frames <= 3 && polite.failed === 0 && polite.latencies.length > 0 && outcome.up && outcome.exit === null,
    note: [
      `polite p99 ${p99Frames.toFixed(2)} frames, ${requests} whoami, ${polite.failed} failed`,
      Number.isNaN(outcome.idleMb) ? 'no RSS read (the bridge was gone)' : `RSS ${outcome.idleMb.toFixed(0)} → ${outcome.peakMb.toFixed(0)} MB`,
      ...(outcome.cappedAfterS === null ? [] : [`stopped at the ${(RSS_CAP_BYTES / 2 ** 30).toFixed(1)} GB cap after ${outcome.cappedAfterS.toFixed(1)} s`]),
      state,
      attackNote,
      ...(outcome.prepared ? [outcome.prepared] : []),
      ...(outcome.freshBridge ? ['on a fresh bridge (the last attack ended the previous one)'] : []),
    ].join('; '),
  };
}

export async function hostileMemoryScenario(rows: Row[], raw: Record<string, unknown>, quick: boolean): Promise<void> {
  const seconds = quick ? 2 : 20;
  const start = async () => {
    const bridge = await startBridgeProcess({ configDir: configDir() });
    // A load generator started and ready (run alone, a first one takes 1 to 4 s to start, during
    // which the polite agent would already be measuring an attack that has not begun).
    await load({ url: `${bridge.url}/health`, connections: 1, duration: 0.2, headers: { authorization: `Bearer ${GOD}` } });
    // Warm-up: the polite path's code compiled and its pool thread started before anything counts.
    await politeAgent(
      bridge.url,
      (() => {
        const until = performance.now() + (quick ? 300 : 1000);
        return () => performance.now() < until;
      })(),
    );
    return bridge;
  };
  let bridge = await start();
  let fresh = false;
  const outcomes: Record<string, Outcome> = {};
  try {
    for (const attack of ATTACKS) {
      const outcome = await runAttack(bridge, attack, seconds, fresh);
      outcomes[attack.name] = outcome;
      rows.push(attackRow(attack.name, outcome));
      process.stderr.write(`  hostile memory: ${rows[rows.length - 1]!.note}\n`);
      // A crashed bridge, or one holding 1.5 GB, would only measure the last attack again.
      fresh = outcome.exit !== null || !outcome.up || outcome.cappedAfterS !== null;
      if (fresh && attack !== ATTACKS[ATTACKS.length - 1]) {
        await bridge.stop();
        bridge = await start();
      }
    }
  } finally {
    await bridge.stop();
  }
  raw.hostileMemory = { seconds, outcomes };
}
