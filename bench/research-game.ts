// Research-mode micro-benchmark of the sandbox on a 256×256 world: stateHash() (target p95 ≤ 5 ms),
// restore() of a savepoint (target p95 ≤ 16.7 ms, one frame at 60 fps) and snapshot(), p50 and p95
// of wall and CPU time; the bytes a savepoint holds beside the save file of the same world
// (encodeSave, gzip and raw); and, for the choice of digest, FNV-1a 64 done in 32-bit halves in
// JavaScript over the same bytes as the hash's bulk.
//
//   node --import tsx bench/research-game.ts           # about 20 s
//   node --import tsx bench/research-game.ts --quick   # fewer samples
//
// Worlds: the default world after 1000 ticks (its own population), then the same world brought to
// 10k and 50k actors (spawned on land, 20 at a time, at seeded places). Each restore rewinds a world
// that has moved on by one tick since the last one, as a rewind does.
import { loadavg } from 'node:os';
import * as game from '../src/game/index.ts';
import type { SandboxSnapshot } from '../src/game/snapshot.ts';
import { nextInt, seedRng } from '../src/game/rng.ts';
import { ACTOR_FIELD_NAMES } from '../src/game/world.ts';

const quick = process.argv.includes('--quick');
const SAMPLES = quick ? 60 : 300;
const HASH_TARGET_MS = 5;
const RESTORE_TARGET_MS = 16.7;
const POPULATIONS = [0, 10_000, 50_000] as const; // 0: the world's own
const MIX = ['human', 'elf', 'orc', 'dwarf', 'sheep', 'cow', 'chicken', 'rabbit', 'wolf', 'fox'];

interface Timing {
  p50: number;
  p95: number;
  cpu50: number;
  cpu95: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Wall and CPU ms of `run`, SAMPLES times, with `between` (untimed) before each sample. */
function time(run: () => unknown, between: () => void = () => {}): Timing {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let n = 0; n < 5; n++) run(); // warm-up
  for (let n = 0; n < SAMPLES; n++) {
    between();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    run();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(wall, 0.5), p95: percentile(wall, 0.95), cpu50: percentile(cpu, 0.5), cpu95: percentile(cpu, 0.95) };
}

/** Spawns a mix of creatures on land tiles until the world holds `target` actors. */
function populate(target: number): void {
  const rng = seedRng(99);
  const s = game.snapshotWorld() as SandboxSnapshot;
  let guard = 0;
  while (game.getWorldState().population_alive < target && guard++ < target) {
    const x = nextInt(rng, s.width);
    const y = nextInt(rng, s.height);
    try {
      game.spawn(MIX[nextInt(rng, MIX.length)]!, x, y, 20, true);
    } catch {
      // water or a full world there: another place
    }
  }
}

/** FNV-1a 64 over bytes, the 64-bit product done in 16-bit pieces of two 32-bit halves. */
function fnv1a64(chunks: Uint8Array[]): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const bytes of chunks) {
    for (let i = 0; i < bytes.length; i++) {
      lo ^= bytes[i]!;
      // (hi, lo) × 0x100_000001b3 mod 2^64
      const l0 = (lo & 0xffff) * 0x1b3;
      const l1 = (lo >>> 16) * 0x1b3 + (l0 >>> 16);
      const nextHi = (Math.imul(hi, 0x1b3) + (lo << 8) + Math.floor(l1 / 0x10000)) >>> 0;
      lo = (((l1 & 0xffff) << 16) | (l0 & 0xffff)) >>> 0;
      hi = nextHi;
    }
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** The bulk the state hash reads: tiles and actor fields up to the high-water mark, from a snapshot (same bytes as the live arrays). */
function bulk(s: SandboxSnapshot): Uint8Array[] {
  const views: ArrayBufferView[] = [s.tiles.type, s.tiles.top, s.tiles.elevation, s.tiles.fire, s.tiles.owner, ...ACTOR_FIELD_NAMES.map((n) => s.actors[n])];
  return views.map((v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

interface Row {
  actors: number;
  hash: Timing;
  fnv: Timing;
  restore: Timing;
  snapshot: Timing;
  savepointBytes: number;
  saveGzip: number;
  saveRaw: number;
}

const rows: Row[] = [];
for (const target of POPULATIONS) {
  game.init({ seed: 1234, zonesX: 4, zonesY: 4, suppressStartupWindow: true });
  game.advance(1000);
  if (target > 0) populate(target);
  const actors = game.getWorldState().population_alive;
  const saved = game.snapshot();
  const world = game.snapshotWorld() as SandboxSnapshot;
  const chunks = bulk(world);
  rows.push({
    actors,
    hash: time(() => game.stateHash()),
    fnv: time(() => fnv1a64(chunks)),
    restore: time(
      () => game.restore(saved),
      () => game.advance(1),
    ),
    snapshot: time(() => game.snapshot()),
    savepointBytes: game.snapshotBytes(saved),
    saveGzip: game.encodeSave(world, true).length,
    saveRaw: game.encodeSave(world, false).length,
  });
  process.stderr.write(`  256² with ${actors} actors done\n`);
}

const ms = (v: number) => v.toFixed(2);
const kib = (v: number) => `${(v / 1024).toFixed(0)} KiB`;
const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
const [load1] = loadavg();
console.log(`\nresearch-mode benchmark, 256×256 world: node ${process.version}, ${SAMPLES} samples each, load average ${load1!.toFixed(1)}\n`);
const cells = (v: Timing) => [ms(v.p50), ms(v.p95), `${ms(v.cpu50)} / ${ms(v.cpu95)}`];
console.log('wall p50 and p95 in ms, then CPU p50 / p95 (this process only: what the work costs without the waits of a shared machine)\n');
console.log(
  line([
    'actors',
    'stateHash p50',
    'p95',
    'cpu',
    'restore p50',
    'p95',
    'cpu',
    'snapshot p50',
    'p95',
    'cpu',
    'FNV-1a 64 in JS p50',
    'savepoint',
    'save file gzip',
    'raw',
    '',
  ]),
);
console.log(line(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']));
for (const r of rows) {
  const flags = [
    r.hash.p95 > HASH_TARGET_MS ? `stateHash over ${HASH_TARGET_MS} ms` : '',
    r.restore.p95 > RESTORE_TARGET_MS ? `restore over ${RESTORE_TARGET_MS} ms` : '',
  ]
    .filter(Boolean)
    .join(', ');
  console.log(
    line([r.actors, ...cells(r.hash), ...cells(r.restore), ...cells(r.snapshot), ms(r.fnv.p50), kib(r.savepointBytes), kib(r.saveGzip), kib(r.saveRaw), flags]),
  );
}
const base = rows[0]!;
const met = base.hash.p95 <= HASH_TARGET_MS && base.restore.p95 <= RESTORE_TARGET_MS;
console.log(
  `\ntargets, on the default world (${base.actors} actors): stateHash p95 ≤ ${HASH_TARGET_MS} ms, restore p95 ≤ ${RESTORE_TARGET_MS} ms: ${met ? 'met' : 'NOT MET'} in this run; the crowded worlds show how the costs grow`,
);
if (load1! > 2) console.log('note: the machine was loaded (load average above its 2 cores): wall p95 figures are inflated; compare the CPU column');
