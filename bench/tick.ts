// Tick micro-benchmark of the sandbox world: ms per simulation tick (median and p95) for world
// sizes 256², 512², 1024² and 1k, 10k, 50k actors. Target: 1024² with 50k actors under 8 ms a tick.
// And what reporting events costs (decisions §7): at most 5% of a tick at 1024² with 50k.
//
//   node --import tsx bench/tick.ts           # about 1.5 minutes
//   node --import tsx bench/tick.ts --quick   # about half a minute
//   node --import tsx bench/tick.ts --target  # only 1024² with 50k actors (both targets)
//   ... --report                              # also put the events rows of 1024² / 50k into docs/benchmarks.md
//
// Each case generates the world once per size (kingdoms, cities, herds), brings it to the actor count
// with a mixed population (civilised races, animals, fish, a few monsters) on tiles they can stand
// on, warms up, then times ticks until a tick count or a time budget is reached, whichever comes
// first, so the run always ends by itself. The cpu column is this process's CPU time per tick: when
// the machine is shared, wall figures rise above it and the table says so.
//
// Events: each case runs three copies of the same world side by side, one tick each in turn (the
// order rotates), each tick a frame as the game thread runs it (endFrame, then the tick): no host
// (the world reports nothing: the baseline above), events off (a host whose emit does nothing) and
// on (a host that stores every event in an array, as the bridge's collector does, handed over once
// a frame). Reporting never changes the world, so the three stay identical, which the run checks
// with their state hashes at the end; machine load hits all three alike, so the ratios hold on a
// busy machine where the absolute figures do not.
import { ACTOR_INDEX, canStand } from '../src/game/assets.ts';
import { killActor } from '../src/game/actors.ts';
import { WorldEvents } from '../src/game/events.ts';
import { buildWorld } from '../src/game/generate.ts';
import { placeActor } from '../src/game/kingdoms.ts';
import { nextFloat, nextInt, seedRng } from '../src/game/rng.ts';
import { tick } from '../src/game/simulation.ts';
import { fromSnapshot, toSnapshot, type SandboxSnapshot } from '../src/game/snapshot.ts';
import { hashState } from '../src/game/state-hash.ts';
import { loadavg } from 'node:os';
import type { World } from '../src/game/world.ts';
import { mergeReport, type Row as ReportRow } from './lib/report.ts';

const quick = process.argv.includes('--quick');
/** Only the target case (1024², 50k actors), at 1 and 16 ticks a frame. */
const targetOnly = process.argv.includes('--target');
const SIZES = targetOnly ? ([16] as const) : ([4, 8, 16] as const); // zones a side: 256², 512², 1024²
const COUNTS = targetOnly ? ([50_000] as const) : ([1_000, 10_000, 50_000] as const);
const TARGET_MS = 8;
/** decisions §7: event production costs at most 5% of a tick (1024², 50k actors). */
const EVENTS_TARGET = 1.05;
const WARMUP = quick ? 5 : 15;
const MAX_TICKS = quick ? 40 : 200;
const BUDGET_MS = quick ? 1_200 : 5_000;

// Roughly what a busy world holds: people, grazers, hunters, fish, and a few monsters.
const MIX: ReadonlyArray<readonly [string, number]> = [
  ['human', 10],
  ['elf', 8],
  ['orc', 8],
  ['dwarf', 8],
  ['sheep', 12],
  ['cow', 8],
  ['chicken', 8],
  ['rabbit', 10],
  ['wolf', 4],
  ['fox', 3],
  ['bear', 2],
  ['cat', 2],
  ['fish', 6],
  ['zombie', 1],
  ['skeleton', 1],
];
const MIX_TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0);

function populate(w: World, target: number): void {
  // A generated 1024² world already holds a few thousand creatures: thin them to the target first.
  for (let i = w.actorEnd - 1; i >= 0 && w.population > target; i--) if (w.a.alive[i] === 1) killActor(w, i);
  const rng = seedRng(99, 1);
  let guard = 0;
  while (w.population < target && guard++ < target * 50) {
    let roll = nextInt(rng, MIX_TOTAL);
    let id = MIX[0]![0];
    for (const [name, weight] of MIX) {
      if (roll < weight) {
        id = name;
        break;
      }
      roll -= weight;
    }
    const asset = ACTOR_INDEX.get(id)!;
    const x = nextInt(rng, w.width);
    const y = nextInt(rng, w.height);
    if (!canStand(asset, w.tileType[y * w.width + x]!)) continue;
    placeActor(w, asset, x + nextFloat(rng), y + nextFloat(rng), nextInt(rng, 4) !== 0);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

interface Row {
  size: string;
  actors: number;
  ticks: number;
  median: number;
  p95: number;
  /** Median CPU time of this process per tick: close to the wall time unless the machine is busy. */
  cpu: number;
  endPopulation: number;
  /** Ticks per frame (update() runs up to 16 at x40; the 256-event rule is per frame). */
  frameTicks: number;
  events: EventsRow;
}

interface EventsRow {
  /** Events the recording host got per tick, on average. */
  perTick: number;
  /** Median CPU ms per tick: no host, a no-op host, a recording host. */
  none: number;
  off: number;
  on: number;
  /**
   * on / no host. Paired: the median over rounds of the two worlds' CPU times for the same tick
   * (the same work, moments apart). Total: all CPU time on / all CPU time without a host, GC pauses
   * included. Wall: the paired median of wall times (load from other processes shows here first).
   */
  paired: number;
  total: number;
  wall: number;
  /** on / off, paired: what storing the events costs beyond producing them. */
  onOff: number;
  /** CPU µs per actor event, reported alone in a tight loop (recording host): noise-free, a floor. */
  perEventUs: number;
  /** The three worlds ended identical. */
  same: boolean;
}

interface Variant {
  w: World;
  /** The world's reporter (null: no host). */
  events: WorldEvents | null;
  /** The events of the current frame (only the recording host fills it). */
  batch: unknown[];
  recorded: number;
  times: number[];
  cpu: number[];
}

function variant(start: SandboxSnapshot, host: 'none' | 'off' | 'on'): Variant {
  const v: Variant = { w: fromSnapshot(start), events: null, batch: [], recorded: 0, times: [], cpu: [] };
  if (host === 'off') v.events = new WorldEvents({ emit() {} });
  if (host === 'on') {
    v.events = new WorldEvents({
      emit(kind, fields, kingdomIds) {
        v.batch.push({ kind, fields, kingdomIds });
      },
    });
  }
  v.w.events = v.events;
  return v;
}

/**
 * One frame of one world, timed as the game thread runs it (update()): close the last frame (its
 * population summaries), then the frame's ticks. Recorded per tick.
 */
function frame(v: Variant, ticks: number): void {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  v.events?.endFrame(v.w);
  for (let n = 0; n < ticks; n++) tick(v.w);
  v.times.push((performance.now() - t0) / ticks);
  const c1 = process.cpuUsage(c0);
  v.cpu.push((c1.user + c1.system) / 1000 / ticks);
  if (v.batch.length > 0) {
    v.recorded += v.batch.length;
    v.batch = []; // the collector posts the frame's batch and starts a new one
  }
}

const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

/** CPU µs per actor event: births and deaths of live actors reported (not done) in frames of 200. */
function perEventMicros(start: SandboxSnapshot): number {
  const w = fromSnapshot(start);
  let batch: unknown[] = [];
  const events = new WorldEvents({
    emit(kind, fields, kingdomIds) {
      batch.push({ kind, fields, kingdomIds });
    },
  });
  const actors: number[] = [];
  for (let s = 0; s < w.actorEnd && actors.length < 200; s++) if (w.a.alive[s] === 1) actors.push(s);
  let reported = 0;
  const c0 = process.cpuUsage();
  for (let frame = 0; frame < 500; frame++) {
    for (let n = 0; n < actors.length; n++) {
      if ((n & 1) === 0) events.actorBorn(w, actors[n]!);
      else events.actorDied(w, actors[n]!, 'age', null);
    }
    reported += actors.length;
    events.endFrame(w);
    batch = [];
  }
  const c1 = process.cpuUsage(c0);
  void batch;
  return (c1.user + c1.system) / reported;
}

function measure(base: SandboxSnapshot, count: number, frameTicks = 1): Row {
  const populated = fromSnapshot(base);
  populate(populated, count);
  for (let n = 0; n < WARMUP; n++) tick(populated);
  const start = toSnapshot(populated);
  const variants = [variant(start, 'none'), variant(start, 'off'), variant(start, 'on')] as const;
  const [none, off, on] = variants;
  const started = performance.now();
  // Round-robin with a rotating order, so no variant always runs right after another's garbage.
  for (let round = 0; round < MAX_TICKS && performance.now() - started < BUDGET_MS * variants.length; round++) {
    for (let k = 0; k < variants.length; k++) frame(variants[(round + k) % variants.length]!, frameTicks);
  }
  const same = new Set(variants.map((v) => hashState(v.w, null))).size === 1;
  const rounds = none.times.length;
  const ticks = rounds * frameTicks;
  const paired = (p: number[], q: number[]) => percentile(sorted(Array.from({ length: rounds }, (_, r) => p[r]! / Math.max(q[r]!, 1e-3))), 0.5);
  const sum = (list: number[]) => list.reduce((total, v) => total + v, 0);
  const times = sorted(none.times);
  return {
    size: `${none.w.width}²`,
    actors: count,
    ticks,
    median: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    cpu: percentile(sorted(none.cpu), 0.5),
    endPopulation: none.w.population,
    frameTicks,
    events: {
      perTick: on.recorded / ticks,
      none: percentile(sorted(none.cpu), 0.5),
      off: percentile(sorted(off.cpu), 0.5),
      on: percentile(sorted(on.cpu), 0.5),
      paired: paired(on.cpu, none.cpu),
      total: sum(on.cpu) / sum(none.cpu),
      wall: paired(on.times, none.times),
      onOff: paired(on.cpu, off.cpu),
      perEventUs: perEventMicros(start),
      same,
    },
  };
}

const rows: Row[] = [];
const began = performance.now();
for (const zones of SIZES) {
  const base = toSnapshot(buildWorld({ zonesX: zones, zonesY: zones, seed: 1234 }));
  for (const count of COUNTS) {
    // The busiest case again at x40 (16 ticks a frame): frames past 256 actor events take the summary path.
    const cases = zones === 16 && count === 50_000 ? [1, 16] : [1];
    for (const frameTicks of cases) {
      const row = measure(base, count, frameTicks);
      rows.push(row);
      const e = row.events;
      process.stderr.write(
        `  ${row.size} ${row.actors} actors, ${frameTicks} tick(s) a frame: median ${row.median.toFixed(2)} ms; events on x${e.paired.toFixed(3)} CPU (${e.perTick.toFixed(1)} a tick)\n`,
      );
    }
  }
}

const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
console.log(
  `\nsandbox tick benchmark${quick ? ' (--quick)' : ''}: node ${process.version}, ${WARMUP} warm-up ticks, up to ${MAX_TICKS} timed ticks or ${BUDGET_MS / 1000} s per case and variant\n`,
);
console.log('without a host (the world reports nothing):\n');
console.log(line(['world', 'actors', 'ticks', 'median ms', 'p95 ms', 'cpu ms (median)', 'population at end', '']));
console.log(line(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---']));
let over = false;
for (const r of rows.filter((row) => row.frameTicks === 1)) {
  const flagged = r.size === '1024²' && r.actors === 50_000 && (r.median > TARGET_MS || r.p95 > TARGET_MS);
  over ||= flagged;
  console.log(
    line([
      r.size,
      String(r.actors),
      String(r.ticks),
      r.median.toFixed(2),
      r.p95.toFixed(2),
      r.cpu.toFixed(2),
      String(r.endPopulation),
      flagged ? `OVER ${TARGET_MS} ms` : '',
    ]),
  );
}
const busy = rows.some((r) => r.median > r.cpu * 1.3 + 0.2);
if (busy) console.log('\nnote: wall time well above CPU time: other processes shared the CPU, so the wall figures are inflated');

console.log(
  '\nevents (decisions §7): the same world three times side by side: no host, events off (a no-op host), on (a recording host).' +
    '\nCPU ms per tick (median); on / no host: paired tick by tick (median; the target), over all ticks (total, GC included), paired in wall time;' +
    '\nthe CPU cost of one actor event reported alone, and that times the events of a tick as a share of a tick\n',
);
console.log(
  line([
    'world',
    'actors',
    'ticks a frame',
    'events a tick',
    'no host ms',
    'off ms',
    'on ms',
    'on / no host',
    'on / no host (total)',
    'on / no host (wall)',
    'on / off',
    'µs an event (alone)',
    'events × µs / tick',
    'same world',
    '',
  ]),
);
console.log(line(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---']));
let eventsOver = false;
let diverged = false;
for (const r of rows) {
  const e = r.events;
  const flagged = r.size === '1024²' && r.actors === 50_000 && e.paired > EVENTS_TARGET;
  eventsOver ||= flagged;
  diverged ||= !e.same;
  console.log(
    line([
      r.size,
      String(r.actors),
      String(r.frameTicks),
      e.perTick.toFixed(1),
      e.none.toFixed(2),
      e.off.toFixed(2),
      e.on.toFixed(2),
      e.paired.toFixed(3),
      e.total.toFixed(3),
      e.wall.toFixed(3),
      e.onOff.toFixed(3),
      e.perEventUs.toFixed(2),
      `${((100 * e.perTick * e.perEventUs) / 1000 / e.none).toFixed(2)}%`,
      e.same ? 'yes' : 'NO',
      flagged ? `OVER x${EVENTS_TARGET}` : '',
    ]),
  );
}
console.log(
  `\ntarget: 1024² with 50k actors under ${TARGET_MS} ms a tick: ${over ? 'MISSED' : 'met'}; ` +
    `events on at most x${EVENTS_TARGET} a tick there (1 and 16 ticks a frame): ${eventsOver ? 'MISSED' : 'met'}` +
    `${diverged ? '; REPORTING CHANGED A WORLD (the three worlds differ)' : ''} (total ${((performance.now() - began) / 1000).toFixed(1)} s)`,
);

// --report: the events target rows (1024², 50k actors) join docs/benchmarks.md beside npm run bench's.
if (process.argv.includes('--report')) {
  const reported: ReportRow[] = rows
    .filter((r) => r.size === '1024²' && r.actors === 50_000)
    .map((r) => ({
      scenario: `bench:tick events on vs no host, 1024², 50k actors, ${r.frameTicks} tick${r.frameTicks === 1 ? '' : 's'} a frame`,
      value: 100 * (r.events.paired - 1),
      unit: '% of a tick',
      ratio: r.events.paired,
      target: `≤ ${EVENTS_TARGET}× (5% of a tick)`,
      ok: r.events.paired <= EVENTS_TARGET,
      note:
        `CPU ms a tick: no host ${r.events.none.toFixed(2)}, off ${r.events.off.toFixed(2)}, on ${r.events.on.toFixed(2)}; ` +
        `on / off ${r.events.onOff.toFixed(3)}; ${r.events.perTick.toFixed(1)} events a tick, ${r.events.perEventUs.toFixed(2)} µs each alone`,
    }));
  mergeReport(new URL('../docs/benchmarks.md', import.meta.url), {
    date: new Date().toISOString().slice(0, 10),
    only: ['tick'],
    settings: { script: 'npm run bench:tick', cases: targetOnly ? '1024² 50k only' : 'all', load1: loadavg()[0]!.toFixed(1) },
    rows: reported,
  });
}
