// What game code pays to import the bridge: `game-control-bridge/game` (the light entry) beside
// `game-control-bridge` (the whole library), each imported by its package name in fresh processes
// from the compiled dist/ (what an installed package runs; npm run bench builds first). Time to
// import and RSS added, medians of `runs` processes, measured in the same run so the ratio holds
// on a loaded machine. The light entry loads no hono, piscina, ajv or MCP SDK
// (test/library/game-entry.test.ts); this shows what that saves.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Row } from '../lib/report.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface ImportCost {
  ms: number;
  rssMb: number;
}

async function importCost(specifier: string): Promise<ImportCost> {
  const source = `
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    await import(${JSON.stringify(specifier)});
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ ms, rssMb: (process.memoryUsage().rss - rss) / 2 ** 20 }));`;
  // No tsx: the package resolves itself through package.json exports, to dist/.
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, timeout: 60_000 });
  return JSON.parse(stdout) as ImportCost;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function embed({ rows, raw, quick }: { rows: Row[]; raw: Record<string, unknown>; quick: boolean }): Promise<void> {
  const runs = quick ? 3 : 11;
  const light: ImportCost[] = [];
  const full: ImportCost[] = [];
  // Interleaved, so both see the same machine load.
  for (let i = 0; i < runs; i++) {
    light.push(await importCost('game-control-bridge/game'));
    full.push(await importCost('game-control-bridge'));
  }
  const lightMs = median(light.map((c) => c.ms));
  const fullMs = median(full.map((c) => c.ms));
  const lightMb = median(light.map((c) => c.rssMb));
  const fullMb = median(full.map((c) => c.rssMb));
  process.stderr.write(`  embed: game entry ${lightMs.toFixed(1)} ms / ${lightMb.toFixed(1)} MB; root ${fullMs.toFixed(1)} ms / ${fullMb.toFixed(1)} MB\n`);
  rows.push({
    scenario: 'import game-control-bridge/game (game code), fresh process, dist/',
    value: lightMs,
    unit: 'ms',
    ratio: lightMs / fullMs,
    target: '≤ 0.25× the root entry',
    ok: lightMs <= 0.25 * fullMs,
    note: `root entry ${fullMs.toFixed(0)} ms; median of ${runs}`,
  });
  rows.push({
    scenario: 'RSS added by importing game-control-bridge/game',
    value: lightMb,
    unit: 'MB',
    ratio: fullMb > 0 ? lightMb / fullMb : NaN,
    target: '≤ 0.25× the root entry',
    ok: lightMb <= 0.25 * fullMb,
    note: `root entry ${fullMb.toFixed(1)} MB; median of ${runs}`,
  });
  raw.embed = { runs, light, full };
}
