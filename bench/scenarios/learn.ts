// The baselines that learn (docs/scenarios.md): for each scenario, PPO trained by its recipe within
// its 15-minute budget on this machine, then measured on the 50 held-out seeds against the
// scenario's fixed opponents, paired by seed with the scenario's tuned bot (the best heuristic).
// Long (about 17 minutes a scenario) and needs torch, so it runs only when asked for by name
// (`npm run bench -- --only learn`), never in a full or quick run. It trains in the venv of
// `node scripts/python-venv.mjs --train` (the package with its [train] extra), made when missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Row } from '../lib/report.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCENARIOS = ['grow', 'duel'] as const;

interface Summary {
  mean: number;
  ci95: [number, number];
}
interface Measured {
  file: string;
  policy: Summary;
  baseline: Summary;
  difference: Summary;
  win_rate?: number;
  baseline_win_rate?: number;
}
interface LearnResult {
  scenario: string;
  seed: number;
  steps: number;
  seconds: number;
  best_validation: number | null;
  load1: number;
  policies: Record<'best' | 'last', Measured | undefined>;
}

function run(command: string, args: string[]): string {
  const done = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${done.status ?? done.signal})`);
  return done.stdout;
}

const interval = (s: Summary) => `${s.mean.toFixed(1)} [${s.ci95[0].toFixed(1)}, ${s.ci95[1].toFixed(1)}]`;

export async function learnScenario(rows: Row[], raw: Record<string, unknown>): Promise<void> {
  const python = run(process.execPath, ['scripts/python-venv.mjs', '--train']).trim();
  const outDir = mkdtempSync(join(tmpdir(), 'gcb-learn-'));
  const results: LearnResult[] = [];
  for (const scenario of SCENARIOS) {
    // Stdout holds the training's progress, a JSON row per update, then the result as its last line.
    const out = run(python, ['python/bench/learn.py', '--scenario', scenario, '--seed', '1', '--out-dir', outDir]);
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as LearnResult;
    results.push(result);
    for (const which of ['best', 'last'] as const) {
      const measured = result.policies[which];
      if (measured === undefined) continue;
      const beats = measured.difference.ci95[0] > 0;
      const wins = measured.win_rate === undefined ? '' : `; win rate ${measured.win_rate.toFixed(2)} (tuned bot ${measured.baseline_win_rate!.toFixed(2)})`;
      rows.push({
        scenario: `PPO on ${scenario}, ${which === 'best' ? 'best on validation' : 'last'} policy − tuned bot, held-out return (paired)`,
        value: measured.difference.mean,
        unit: 'points',
        target: 'interval above 0',
        ok: beats,
        note:
          `difference ${interval(measured.difference)}; PPO ${interval(measured.policy)}, tuned bot ${interval(measured.baseline)}${wins}; ` +
          `${result.steps} env steps in ${result.seconds.toFixed(0)} s (budget 900 s); load average ${result.load1.toFixed(1)} at the end; ` +
          `policy file ${measured.file}`,
      });
    }
    process.stderr.write(`  learn: ${scenario} trained, ${result.steps} steps in ${result.seconds.toFixed(0)} s\n`);
  }
  raw.learn = results;
}
