// Research mode (decisions §12), `--only research`: each figure a ratio or a percentile from one run.
// - `step 1000` on the default world (256², seed 1234): ticks/s through the bridge (one HTTP round
//   trip, lockstep) against the same world stepped in this process with no bridge (advance(1) a
//   tick, as bench:tick's loop), in alternating rounds over the same ticks; the two worlds' hashes
//   must agree after each round, or the row says so. Target ≥ 0.9×.
// - `spawn` one after another on one kept-alive connection: lockstep against the same client on a
//   realtime bridge at 60 fps, where each waits for the next frame. Target ≥ 25×. The client is a
//   minimal HTTP/1.1 writer on a raw socket, so the figure is the bridge's rather than node:http's
//   (whose client costs about as much CPU a request as the bridge's main loop on a loaded machine);
//   the same spawns through node:http are in the note.
// - `rewind` of that 256² world (the world one tick on since the savepoint, as an episode loop
//   does): the HTTP round trip's p95, target ≤ 16.7 ms (a frame); and the bytes a savepoint holds
//   beside the world's save file (save_world, gzip and raw).
// - `world_hash` of that world: the round trip's p95, target ≤ 5 ms.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as game from '../../src/game/index.ts';
import { keptAliveClient, type KeptAliveClient } from '../lib/kept-alive.ts';
import { processCpuMs, startBridgeProcess } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const TOKEN = 'r'.repeat(48);
const SEED = 1234;
const STEP_TICKS = 1000;
const STEP_TARGET = 0.9;
const SPAWN_TARGET = 25;
const REWIND_TARGET_MS = 16.7;
const HASH_TARGET_MS = 5;

function configDir(clock: 'lockstep' | 'realtime'): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-research-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${TOKEN}"\n[Game]\nfps = 60\nseed = ${SEED}\nclock = "${clock}"\n`, { mode: 0o600 });
  return dir;
}

type Client = KeptAliveClient;

/**
 * The least client there is: one socket, each request written whole, the answer read by its
 * content-length. The bridge answers JSON with a content-length and keeps the connection open, but
 * closes it after 5 s idle (node's keep-alive timeout): a closed socket is opened again, and a
 * request it carried unanswered is written again on the new one.
 */
async function rawClient(url: string): Promise<Client> {
  const { port } = new URL(url);
  let socket: Socket | null = null;
  let buffered: Buffer = Buffer.alloc(0);
  let waiting: { request: string; answer: (status: number, body: Buffer) => void } | null = null;
  const open = async (): Promise<Socket> => {
    const next = connect(Number(port), '127.0.0.1');
    next.setNoDelay(true);
    await new Promise<void>((resolve, reject) => next.once('connect', resolve).once('error', reject));
    next.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      if (Number.isNaN(length)) throw new Error(`an answer without content-length: ${head}`);
      if (buffered.length < headEnd + 4 + length) return;
      const body = buffered.subarray(headEnd + 4, headEnd + 4 + length);
      buffered = buffered.subarray(headEnd + 4 + length);
      const done = waiting!;
      waiting = null;
      done.answer(Number(head.slice(9, 12)), body);
    });
    next.on('close', () => {
      if (socket === next) socket = null;
      buffered = Buffer.alloc(0);
      const unanswered = waiting;
      if (unanswered) void open().then((again) => (socket = again).write(unanswered.request));
    });
    next.on('error', () => {}); // a reset is a close: handled there
    return next;
  };
  socket = await open();
  return {
    async post(name, args) {
      const body = JSON.stringify(args === undefined ? { name } : { name, args });
      const request = `POST /cmd HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      socket ??= await open();
      const t0 = performance.now();
      return new Promise((resolve) => {
        waiting = { request, answer: (status, bytes) => resolve({ status, body: JSON.parse(bytes.toString()), ms: performance.now() - t0 }) };
        socket!.write(request);
      });
    },
    close() {
      waiting = null;
      socket?.destroy();
    },
  };
}

async function ok(c: Client, name: string, args?: unknown): Promise<any> {
  const answer = await c.post(name, args);
  if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.result;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], p: number) => {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};
const load1 = () => loadavg()[0]!.toFixed(1);

/** Spawns one after another for `seconds`: their round trips. */
async function spawnRun(c: Client, x: number, y: number, seconds: number): Promise<number[]> {
  const ms: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const answer = await c.post('spawn', { entity_id: 'sheep', x, y });
    if (answer.status !== 200) throw new Error(`spawn answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    ms.push(answer.ms);
  }
  return ms;
}

/** A tile near the middle of the world where a sheep may stand (spawn answers 200, not 422, there). */
async function pasture(c: Client): Promise<{ x: number; y: number }> {
  for (let r = 0; r < 120; r += 3) {
    for (const [x, y] of [
      [128 + r, 128],
      [128, 128 + r],
      [128 - r, 128],
      [128, 128 - r],
    ] as const) {
      const answer = await c.post('spawn', { entity_id: 'sheep', x, y });
      if (answer.status === 200) return { x, y };
    }
  }
  throw new Error('no tile near the middle of the world takes a sheep');
}

/** Spawns on each side in turn, `seconds` for each in all, in `rounds` (the order turned each round): spawns/s and round trips per side. */
async function alternate(
  sides: Array<{ c: Client; at: { x: number; y: number } }>,
  seconds: number,
  rounds: number,
): Promise<Array<{ perS: number; ms: number[] }>> {
  const ms = sides.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i);
    for (const i of order) ms[i]!.push(...(await spawnRun(sides[i]!.c, sides[i]!.at.x, sides[i]!.at.y, seconds / rounds)));
  }
  return ms.map((list) => ({ perS: (list.length * 1000) / list.reduce((a, b) => a + b, 0), ms: list }));
}

export async function researchScenario(rows: Row[], raw: Record<string, unknown>, quick: boolean): Promise<void> {
  // Odd counts: the median is a round's own figure.
  const rounds = quick ? 3 : 7;
  const samples = quick ? 60 : 400;
  /** Seconds of spawns for each of the three clients. */
  const spawnSeconds = quick ? 0.5 : 3;
  const [bridge, realtime] = await Promise.all([
    startBridgeProcess({ configDir: configDir('lockstep') }),
    startBridgeProcess({ configDir: configDir('realtime') }),
  ]);
  const c = keptAliveClient(bridge.url, TOKEN);

  // (a) step 1000 through the bridge against the same world in this process, over the same ticks.
  game.init({ seed: SEED, suppressStartupWindow: true });
  let hashesAgree = (await ok(c, 'world_hash')).hash === game.stateHash();
  const bridgeRate: number[] = [];
  const localRate: number[] = [];
  const ratios: number[] = [];
  let bridgeCpuMs = 0;
  let localCpuMs = 0;
  // Round 0 warms both up (compiled code, caches) on 200 ticks and is not counted.
  for (let round = 0; round <= rounds; round++) {
    const ticks = round === 0 ? 200 : STEP_TICKS;
    let viaBridge = 0;
    let local = 0;
    const runBridge = async () => {
      const cpu0 = processCpuMs(bridge.child.pid);
      const answer = await c.post('step', { ticks });
      if (round > 0) bridgeCpuMs += (processCpuMs(bridge.child.pid) ?? NaN) - (cpu0 ?? NaN);
      if (answer.status !== 200) throw new Error(`step answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      viaBridge = (STEP_TICKS * 1000) / answer.ms;
      return answer.body.result.hash as string;
    };
    const runLocal = () => {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let n = 0; n < ticks; n++) game.advance(1);
      local = (STEP_TICKS * 1000) / (performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      if (round > 0) localCpuMs += (cpu.user + cpu.system) / 1000;
      return game.stateHash();
    };
    // The order turns each round, so a load that comes and goes hits both sides alike.
    let remote: string;
    let here: string;
    if (round % 2 === 1) {
      remote = await runBridge();
      here = runLocal();
    } else {
      here = runLocal();
      remote = await runBridge();
    }
    hashesAgree &&= remote === here;
    if (round === 0) continue;
    bridgeRate.push(viaBridge);
    localRate.push(local);
    ratios.push(viaBridge / local);
    process.stderr.write(`  research step ${STEP_TICKS}: bridge ${viaBridge.toFixed(0)} ticks/s, in-process ${local.toFixed(0)} ticks/s\n`);
  }
  const stepRatio = at(ratios, 0.5);
  const perTick = (ms: number) => (ms / (rounds * STEP_TICKS)).toFixed(3);
  const cpuRatio = localCpuMs / bridgeCpuMs;
  rows.push({
    scenario: `research: step ${STEP_TICKS} on the default world (256², lockstep), ticks/s via the bridge vs in-process`,
    value: at(bridgeRate, 0.5),
    unit: 'ticks/s',
    ratio: stepRatio,
    target: `≥ ${STEP_TARGET}× in-process`,
    ok: stepRatio >= STEP_TARGET && hashesAgree,
    note:
      `median of ${rounds} alternating rounds over the same ticks (ratio ${at(ratios, 0).toFixed(2)}–${at(ratios, 1).toFixed(2)}); in-process ${at(localRate, 0.5).toFixed(0)} ticks/s; ` +
      `CPU a tick: bridge ${perTick(bridgeCpuMs)} ms (every thread), in-process ${perTick(localCpuMs)} ms (${cpuRatio.toFixed(2)}×); the two worlds' hashes ${hashesAgree ? 'agree' : 'DIFFER'} after every round; load1 ${load1()}`,
  });
  raw.researchStep = { bridgeRate, localRate, ratios, bridgeCpuMs, localCpuMs, hashesAgree };

  // (d) world_hash, then (c) rewind, on the same world (now a few thousand ticks on).
  const hashMs: number[] = [];
  for (let n = 0; n < 10; n++) await ok(c, 'world_hash'); // warm-up
  const hashCpu0 = processCpuMs(bridge.child.pid);
  for (let n = 0; n < samples; n++) {
    const answer = await c.post('world_hash');
    if (answer.status !== 200) throw new Error(`world_hash answered ${answer.status}`);
    hashMs.push(answer.ms);
  }
  const hashCpuMs = (processCpuMs(bridge.child.pid) ?? NaN) - (hashCpu0 ?? NaN);
  const hashP95 = at(hashMs, 0.95);
  const state = await ok(c, 'get_world_state');
  rows.push({
    scenario: 'research: world_hash of a 256² world (HTTP round trip, lockstep)',
    value: hashP95,
    unit: 'ms p95',
    p50: at(hashMs, 0.5),
    p99: at(hashMs, 0.99),
    target: `p95 ≤ ${HASH_TARGET_MS} ms`,
    ok: hashP95 <= HASH_TARGET_MS,
    note: `${samples} in a row; the bridge's CPU ${(hashCpuMs / samples).toFixed(2)} ms a world_hash (every thread); ${state.population_alive} actors at tick ${state.tick}; load1 ${load1()}`,
  });

  const saved = await ok(c, 'savepoint', { label: 'bench' });
  const rewindMs: number[] = [];
  let rewindCpuMs = 0;
  let rewindsExact = true;
  for (let n = 0; n < samples + 5; n++) {
    await ok(c, 'step', { ticks: 1 });
    const cpu0 = processCpuMs(bridge.child.pid);
    const answer = await c.post('rewind', { id: saved.id });
    if (answer.status !== 200) throw new Error(`rewind answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    rewindsExact &&= answer.body.result.hash === saved.hash;
    if (n < 5) continue; // the first five warm up
    rewindMs.push(answer.ms);
    rewindCpuMs += (processCpuMs(bridge.child.pid) ?? NaN) - (cpu0 ?? NaN);
  }
  const gzip = (await ok(c, 'save_world', { folder: 'bench-gzip' })).bytes as number;
  const plain = (await ok(c, 'save_world', { folder: 'bench-raw', compress: false })).bytes as number;
  const rewindP95 = at(rewindMs, 0.95);
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  rows.push({
    scenario: 'research: rewind of a 256² world (HTTP round trip, lockstep)',
    value: rewindP95,
    unit: 'ms p95',
    p50: at(rewindMs, 0.5),
    p99: at(rewindMs, 0.99),
    target: `p95 ≤ ${REWIND_TARGET_MS} ms`,
    ok: rewindP95 <= REWIND_TARGET_MS && rewindsExact,
    note:
      `${samples} rewinds, each after a step of 1 tick; the bridge's CPU ${(rewindCpuMs / samples).toFixed(2)} ms a rewind (every thread); ` +
      `every rewind's hash ${rewindsExact ? 'is' : 'is NOT'} the savepoint's; ${state.population_alive} actors; load1 ${load1()}`,
  });
  rows.push({
    scenario: 'research: bytes a savepoint holds beside the save file of the same 256² world',
    value: saved.bytes / 1024,
    unit: 'KiB',
    ratio: saved.bytes / plain,
    note: `save_world: ${kib(gzip)} gzip, ${kib(plain)} uncompressed (the ratio is to the uncompressed file); ${state.population_alive} actors`,
  });
  raw.researchReads = {
    hashMs,
    rewindMs,
    rewindCpuMs,
    savepointBytes: saved.bytes,
    saveGzip: gzip,
    saveRaw: plain,
    actors: state.population_alive,
    tick: state.tick,
  };
  c.close();

  // (b) spawn after spawn on one connection: lockstep (this bridge) against realtime at 60 fps.
  const [lockstepRaw, realtimeRaw] = await Promise.all([rawClient(bridge.url), rawClient(realtime.url)]);
  const lockstepHttp = keptAliveClient(bridge.url, TOKEN);
  const sides = [
    { c: lockstepRaw, at: await pasture(lockstepRaw) },
    { c: realtimeRaw, at: await pasture(realtimeRaw) },
  ];
  sides.push({ c: lockstepHttp, at: sides[0]!.at });
  const [lockstep, realtimeRun, viaNodeHttp] = await alternate(sides, spawnSeconds, 2);
  const spawnRatio = lockstep!.perS / realtimeRun!.perS;
  rows.push({
    scenario: 'research: spawn after spawn on one kept-alive connection, lockstep vs realtime at 60 fps',
    value: lockstep!.perS,
    unit: 'spawns/s',
    p50: at(lockstep!.ms, 0.5),
    p99: at(lockstep!.ms, 0.99),
    ratio: spawnRatio,
    target: `≥ ${SPAWN_TARGET}× realtime`,
    ok: spawnRatio >= SPAWN_TARGET,
    note:
      `a raw-socket client; realtime ${realtimeRun!.perS.toFixed(1)} spawns/s (p50 ${at(realtimeRun!.ms, 0.5).toFixed(1)} ms); ` +
      `through node:http's client ${viaNodeHttp!.perS.toFixed(0)} spawns/s under lockstep (${(viaNodeHttp!.perS / realtimeRun!.perS).toFixed(1)}×); load1 ${load1()}`,
  });
  raw.researchSpawn = { lockstep, realtime: realtimeRun, viaNodeHttp };
  process.stderr.write(`  research spawn: lockstep ${lockstep!.perS.toFixed(0)}/s, realtime ${realtimeRun!.perS.toFixed(1)}/s (${spawnRatio.toFixed(1)}×)\n`);
  for (const side of sides) side.c.close();
  await Promise.all([bridge.stop(), realtime.stop()]);
}
