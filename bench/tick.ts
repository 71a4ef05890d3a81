// Tick micro-benchmark of the sandbox world: ms per simulation tick (median and p95) for world
// sizes 256², 512², 1024² and 1k, 10k, 50k actors. Target: 1024² with 50k actors under 8 ms a tick.
//
//   node --import tsx bench/tick.ts           # ~1 minute
//   node --import tsx bench/tick.ts --quick   # well under 30 s
//
// Each case generates the world once per size (kingdoms, cities, herds), brings it to the actor count
// with a mixed population (civilised races, animals, fish, a few monsters) on tiles they can stand
// on, warms up, then times ticks until a tick count or a time budget is reached, whichever comes
// first, so the run always ends by itself. The cpu column is this process's CPU time per tick: when
// the machine is shared, wall figures rise above it and the table says so.
import { ACTOR_INDEX, canStand } from '../src/game/assets.ts';
import { killActor } from '../src/game/actors.ts';
import { buildWorld } from '../src/game/generate.ts';
import { placeActor } from '../src/game/kingdoms.ts';
import { nextFloat, nextInt, seedRng } from '../src/game/rng.ts';
import { tick } from '../src/game/simulation.ts';
import { fromSnapshot, toSnapshot, type SandboxSnapshot } from '../src/game/snapshot.ts';
import type { World } from '../src/game/world.ts';

const quick = process.argv.includes('--quick');
const SIZES = [4, 8, 16] as const; // zones a side: 256², 512², 1024²
const COUNTS = [1_000, 10_000, 50_000] as const;
const TARGET_MS = 8;
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
  for (let i = w.hwm - 1; i >= 0 && w.population > target; i--) if (w.a.alive[i] === 1) killActor(w, i);
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
}

function measure(base: SandboxSnapshot, count: number): Row {
  const w = fromSnapshot(base);
  populate(w, count);
  for (let n = 0; n < WARMUP; n++) tick(w);
  const times: number[] = [];
  const cpu: number[] = [];
  const started = performance.now();
  while (times.length < MAX_TICKS && performance.now() - started < BUDGET_MS) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    tick(w);
    times.push(performance.now() - t0);
    const c1 = process.cpuUsage(c0);
    cpu.push((c1.user + c1.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    size: `${w.width}²`,
    actors: count,
    ticks: times.length,
    median: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    cpu: percentile(cpu, 0.5),
    endPopulation: w.population,
  };
}

const rows: Row[] = [];
const began = performance.now();
for (const zones of SIZES) {
  const base = toSnapshot(buildWorld({ zonesX: zones, zonesY: zones, seed: 1234 }));
  for (const count of COUNTS) {
    const row = measure(base, count);
    rows.push(row);
    process.stderr.write(`  ${row.size} ${row.actors} actors: median ${row.median.toFixed(2)} ms\n`);
  }
}

const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
console.log(
  `\nsandbox tick benchmark${quick ? ' (--quick)' : ''}: node ${process.version}, ${WARMUP} warm-up ticks, up to ${MAX_TICKS} timed ticks or ${BUDGET_MS / 1000} s per case\n`,
);
console.log(line(['world', 'actors', 'ticks', 'median ms', 'p95 ms', 'cpu ms (median)', 'population at end', '']));
console.log(line(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---']));
let over = false;
for (const r of rows) {
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
  `\ntarget: 1024² with 50k actors under ${TARGET_MS} ms a tick: ${over ? 'MISSED' : 'met'} (total ${((performance.now() - began) / 1000).toFixed(1)} s)`,
);
