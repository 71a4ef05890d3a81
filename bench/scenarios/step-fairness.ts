// Step fairness (decisions §15), `--only step-fairness`: on a crowded world (the sandbox's 256², filled
// with sheep up to POPULATION, as the audit's 52k), under lockstep, a faction player sends
// `step {ticks: 10000}` in a loop, one at a time (a yielded or stopped step counts the ticks it ran).
// Rounds alternate, each from the same savepoint (rewound by the god before it): the player alone,
// then the player while an observer calls world_hash one at a time.
// - the observer's world_hash p99 while the player steps: target ≤ 0.5 s (the player's steps give way
//   after [Game] step_slice_ms, 100 ms);
// - requests answered 504, by either agent: target none;
// - the player's ticks/s beside it against its ticks/s alone: target ≥ 0.8×.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { keptAliveClient, percentile, type KeptAliveClient } from '../lib/kept-alive.ts';
import { startBridgeProcess } from '../lib/processes.ts';
import type { Row } from '../lib/report.ts';

const GOD = 'fairness-god-token-abcdefghijklmnopqrstuvwxyz0123456789AB';
const PLAYER = 'fairness-player-token-abcdefghijklmnopqrstuvwxyz012345678';
const OBSERVER = 'fairness-observer-token-abcdefghijklmnopqrstuvwxyz0123456';
const STEP_TICKS = 10_000;
const HASH_P99_TARGET_MS = 500;
const RATE_TARGET = 0.8;
const WORLD = 256;

type Client = KeptAliveClient;

async function ok(c: Client, name: string, args?: unknown): Promise<any> {
  const answer = await c.post(name, args);
  if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.result;
}

/** A seeded generator, so every run crowds the world the same way. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Sheep up to `population`, 32 spawns of 100 a batch at seeded places; returns the population reached. */
async function crowd(god: Client, population: number): Promise<number> {
  const next = random(52);
  let alive = (await ok(god, 'get_world_state')).population_alive as number;
  for (let batches = 0; alive < population && batches < 200; batches++) {
    const commands = Array.from({ length: 32 }, () => ({
      name: 'spawn',
      args: { entity_id: 'sheep', x: Math.floor(next() * WORLD), y: Math.floor(next() * WORLD), count: 100 },
    }));
    await ok(god, 'batch', { commands, stop_on_error: false });
    alive = (await ok(god, 'get_world_state')).population_alive as number;
  }
  return alive;
}

interface Round {
  ticks: number;
  seconds: number;
  steps: number;
  yielded: number;
  statuses: Record<number, number>;
}

/** The player steps for `ms`, one step at a time; the round ends with the answer of the last one sent. */
async function stepLoop(player: Client, ms: number): Promise<Round> {
  const round: Round = { ticks: 0, seconds: 0, steps: 0, yielded: 0, statuses: {} };
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const answer = await player.post('step', { ticks: STEP_TICKS });
    round.statuses[answer.status] = (round.statuses[answer.status] ?? 0) + 1;
    if (answer.status !== 200) continue;
    round.steps++;
    round.ticks += answer.body.result.ticks as number;
    if (answer.body.result.stopped === 'yielded') round.yielded++;
  }
  round.seconds = (performance.now() - t0) / 1000;
  return round;
}

/** The observer's world_hash, one at a time, until `stop` says so. */
async function hashLoop(observer: Client, stop: () => boolean): Promise<{ latencies: number[]; statuses: Record<number, number> }> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  while (!stop()) {
    const answer = await observer.post('world_hash');
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    latencies.push(answer.ms);
  }
  return { latencies, statuses };
}

const add = (into: Record<number, number>, from: Record<number, number>) => {
  for (const [status, count] of Object.entries(from)) into[Number(status)] = (into[Number(status)] ?? 0) + count;
};

export async function stepFairnessScenario(rows: Row[], raw: Record<string, unknown>, duration: number, quick = false): Promise<void> {
  const population = quick ? 5_000 : 52_000;
  const rounds = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-fairness-'));
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'s'.repeat(48)}"\n[Game]\nclock = "lockstep"\nseed = 1234\n`, { mode: 0o600 });
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      agents: [
        { id: 'god', token: GOD, role: 'god' },
        { id: 'player', token: PLAYER, role: 'faction_player' },
        { id: 'observer', token: OBSERVER, role: 'observer' },
      ],
    }),
    { mode: 0o600 },
  );
  const bridge = await startBridgeProcess({ configDir: dir });
  const god = keptAliveClient(bridge.url, GOD);
  const player = keptAliveClient(bridge.url, PLAYER);
  const observer = keptAliveClient(bridge.url, OBSERVER);
  try {
    const alive = await crowd(god, population);
    const savepoint = (await ok(god, 'savepoint', { label: 'crowded' })).id as number;
    const alone: Round[] = [];
    const beside: Round[] = [];
    const latencies: number[] = [];
    const statuses: Record<number, number> = {};
    for (let round = 0; round < rounds; round++) {
      await ok(god, 'rewind', { id: savepoint });
      const lone = await stepLoop(player, duration * 1000);
      alone.push(lone);
      add(statuses, lone.statuses);
      await ok(god, 'rewind', { id: savepoint });
      let stepping = true;
      const hashes = hashLoop(observer, () => !stepping);
      const shared = await stepLoop(player, duration * 1000).finally(() => (stepping = false));
      const observed = await hashes;
      beside.push(shared);
      latencies.push(...observed.latencies);
      add(statuses, shared.statuses);
      add(statuses, observed.statuses);
      process.stderr.write(
        `  step fairness round ${round + 1}: alone ${(lone.ticks / lone.seconds).toFixed(0)} ticks/s, beside ${(shared.ticks / shared.seconds).toFixed(0)} ticks/s (${shared.yielded} of ${shared.steps} steps yielded), world_hash p99 ${percentile(observed.latencies, 99).toFixed(0)} ms, load ${loadavg()[0]!.toFixed(1)}\n`,
      );
    }
    const rate = (list: Round[]) => list.reduce((sum, r) => sum + r.ticks, 0) / list.reduce((sum, r) => sum + r.seconds, 0);
    const aloneRate = rate(alone);
    const besideRate = rate(beside);
    const p99 = percentile(latencies, 99);
    const timeouts = statuses[504] ?? 0;
    const yielded = beside.reduce((sum, r) => sum + r.yielded, 0);
    const steps = beside.reduce((sum, r) => sum + r.steps, 0);
    rows.push({
      scenario: `step fairness: observer world_hash while a faction player steps ${STEP_TICKS} at a time (${alive} alive)`,
      value: p99,
      unit: 'ms p99',
      p50: percentile(latencies, 50),
      p99,
      target: `p99 ≤ ${HASH_P99_TARGET_MS} ms`,
      ok: p99 <= HASH_P99_TARGET_MS,
      note: `${latencies.length} world_hash in ${rounds} round(s) of ${duration} s`,
    });
    rows.push({
      scenario: 'step fairness: requests answered 504 (either agent)',
      value: timeouts,
      unit: 'requests',
      target: 'none',
      ok: timeouts === 0,
      note: `status ${JSON.stringify(statuses)}`,
    });
    rows.push({
      scenario: 'step fairness: the stepping player beside the observer, against alone',
      value: besideRate,
      unit: 'ticks/s',
      ratio: besideRate / aloneRate,
      target: `≥ ${RATE_TARGET}× alone`,
      ok: besideRate / aloneRate >= RATE_TARGET,
      note: `alone ${aloneRate.toFixed(0)} ticks/s; ${yielded} of ${steps} steps beside it yielded`,
    });
    raw.stepFairness = { alive, alone, beside, latencies, statuses };
  } finally {
    god.close();
    player.close();
    observer.close();
    await bridge.stop();
  }
}
