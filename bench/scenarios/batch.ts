// Batches and idempotency (decisions §8), `--only batch`:
// - items per second with batches of 32 get_tile at 8 slots and 8 connections, against the model
//   min(8 × 32, 256) × fps (the frame runs 256 items at most);
// - the dispatcher's share of frames running 256 spawn items (count 1), handlers excluded;
// - Idempotency-Key on every request (a fresh key each) against none, on the frame model.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startBridgeProcess, type BridgeProcess, type BridgeStatsReply } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const FPS = 60;
const TOKEN = 'c'.repeat(48);

function configDir(slots: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-batch-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${TOKEN}"\nmax_concurrent_requests = ${slots}\n[Game]\nfps = ${FPS}\n`);
  return dir;
}

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const batchBody = (item: { name: string; args: unknown }) => JSON.stringify({ name: 'batch', args: { commands: Array.from({ length: 32 }, () => item) } });

async function frames(bridge: BridgeProcess): Promise<BridgeStatsReply['stats']['frames']> {
  return (await bridge.request<BridgeStatsReply>('stats')).stats.frames;
}

export async function batchScenario(rows: Row[], raw: Record<string, unknown>, duration: number, quick = false): Promise<void> {
  // Items per second: 8 connections each sending batches of 32 get_tile.
  let bridge = await startBridgeProcess({ configDir: configDir(8) });
  const reads = await load({
    url: `${bridge.url}/cmd`,
    connections: 8,
    duration,
    method: 'POST',
    headers,
    body: batchBody({ name: 'get_tile', args: { x: 10, y: 10 } }),
  });
  const items = reads.rps * 32;
  const model = Math.min(8 * 32, 256) * FPS;
  rows.push({
    scenario: 'batch of 32 get_tile, 8 conn, 8 slots: items/s',
    value: items,
    unit: 'items/s',
    p50: reads.p50,
    p99: reads.p99,
    ratio: items / model,
    target: `≥ 0.9× model ${model}/s`,
    ok: items / model >= 0.9 && reads.non2xx === 0,
    note: `${reads.rps.toFixed(0)} batches/s; single commands top out at ${8 * FPS}/s here`,
  });
  raw.batchReads = reads;
  await bridge.stop();

  // Frames of 256 spawn items: what the dispatcher itself costs the game thread.
  bridge = await startBridgeProcess({ configDir: configDir(8) });
  const spawns = await load({
    url: `${bridge.url}/cmd`,
    connections: 8,
    duration: Math.min(duration, 3), // the world fills with actors: keep it short
    method: 'POST',
    headers,
    body: batchBody({ name: 'spawn', args: { entity_id: 'sheep', x: 30, y: 30, count: 1 } }),
  });
  const spawnFrames = await frames(bridge);
  rows.push({
    scenario: 'dispatcher share of a frame running 256 spawn items',
    value: spawnFrames.fullFrameOverheadMsAvg,
    unit: 'ms',
    target: '≤ 4 ms',
    ok: spawnFrames.fullFrames > 0 && spawnFrames.fullFrameOverheadMsAvg <= 4,
    note: `${spawnFrames.fullFrames} full frames, max ${spawnFrames.fullFrameOverheadMsMax.toFixed(3)} ms; ${(spawns.rps * 32).toFixed(0)} spawns/s`,
  });
  raw.batchSpawns = { load: spawns, frames: spawnFrames };
  await bridge.stop();

  // Idempotency-Key on vs off: a fresh key per request (autocannon's [<id>]), 64 slots so the
  // frame model (32 a frame) is the limit and the main loop's own cost shows. One bridge, the two
  // alternated in rounds, so a shared machine's load moves both alike.
  const single = JSON.stringify({ name: 'get_world_state', args: {} });
  const results = { off: 0, on: 0 };
  bridge = await startBridgeProcess({ configDir: configDir(64) });
  const round = quick ? 0.5 : Math.max(1, Math.round(duration / 2));
  for (let i = 0; i < 4; i++) {
    const keyed = i % 2 === 1;
    const run = await load({
      url: `${bridge.url}/cmd`,
      connections: 64,
      duration: round,
      method: 'POST',
      headers: keyed ? { ...headers, 'idempotency-key': 'bench-[<id>]' } : headers,
      body: single,
      idReplacement: true, // both: the id replacement costs the load generator the same either way
    });
    results[keyed ? 'on' : 'off'] += run.rps / 2;
    raw[`keys${keyed ? 'On' : 'Off'}${i >> 1}`] = run;
  }
  await bridge.stop();
  const cost = 1 - results.on / results.off;
  rows.push({
    scenario: 'Idempotency-Key on every request vs none (64 conn, 64 slots)',
    value: cost * 100,
    unit: '% fewer req/s',
    ratio: results.on / results.off,
    target: '≤ 3%',
    ok: cost <= 0.03,
    note: `off ${results.off.toFixed(0)} / on ${results.on.toFixed(0)} req/s (model ${32 * FPS}/s), alternated rounds`,
  });
}
