// The PettingZoo env (python/): AEC agent steps per second with 2 agents, random legal actions,
// ticks_per_cycle 1 and the env starting its own bridge, as PettingZoo's performance_benchmark loops;
// and the share of a step spent waiting for the bridge against the Python side (python/bench/steps.py
// times every request), with the CPU of each: the bridge's main thread (HTTP, dispatch) and its other
// threads (the game thread's commands and ticks), Python's HTTP client, decoding and the rest. Goal
// 1000 steps/s, floor 500. Runs in the venv of scripts/python-venv.mjs, which a full run makes when
// it is missing; --quick uses it only if it is made (making it takes about 2 minutes, longer than the
// whole quick run), and otherwise reports the row as not measured and says how to make it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Row } from '../lib/report.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GOAL = 1000;
const FLOOR = 500;

interface StepsResult {
  steps_per_s: number;
  steps: number;
  resets: number;
  requests_per_step: number;
  bridge_share: number;
  bridge_us_per_step: number;
  python_us_per_step: number;
  python_cpu_us_per_step: number;
  python_http_cpu_us_per_step: number;
  python_decode_cpu_us_per_step: number;
  bridge_cpu_us_per_step: number;
  bridge_main_cpu_us_per_step: number;
  whoami_round_trips_per_s: number;
  loadavg_before: [number, number, number];
  load1: number;
}

const SCENARIO = 'PettingZoo AEC agent steps/s (2 agents, random legal actions, ticks_per_cycle 1, own bridge)';

function run(command: string, args: string[]): string {
  const done = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${done.status ?? done.signal})`);
  return done.stdout;
}

export async function pettingzooScenario(rows: Row[], raw: Record<string, unknown>, duration: number, quick: boolean): Promise<void> {
  // --if-made prints nothing when the venv is not made.
  const python = run(process.execPath, ['scripts/python-venv.mjs', ...(quick ? ['--if-made'] : [])]).trim();
  if (python === '') {
    rows.push({
      scenario: SCENARIO,
      value: NaN,
      unit: 'steps/s',
      target: `≥ ${GOAL}/s (floor ${FLOOR})`,
      note: 'not measured: --quick does not make the Python venv (about 2 minutes); `node scripts/python-venv.mjs` makes it, and later quick runs measure this row (a full run makes it itself)',
    });
    process.stderr.write('  pettingzoo: skipped, no Python venv yet (node scripts/python-venv.mjs makes it)\n');
    return;
  }
  const result = JSON.parse(run(python, ['python/bench/steps.py', '--seconds', String(duration), '--agents', '2', '--ticks', '1'])) as StepsResult;
  raw.pettingzoo = result;
  const share = Math.round(result.bridge_share * 100);
  const us = (value: number) => value.toFixed(0);
  const pythonRest = result.python_cpu_us_per_step - result.python_http_cpu_us_per_step - result.python_decode_cpu_us_per_step;
  rows.push({
    scenario: SCENARIO,
    value: result.steps_per_s,
    unit: 'steps/s',
    target: `≥ ${GOAL}/s (floor ${FLOOR})`,
    ok: result.steps_per_s >= GOAL,
    note:
      `bridge ${share}% / Python ${100 - share}% of a step (${us(result.bridge_us_per_step)} / ${us(result.python_us_per_step)} µs); ` +
      `CPU a step: bridge ${us(result.bridge_cpu_us_per_step)} µs (main thread ${us(result.bridge_main_cpu_us_per_step)}, ` +
      `other threads ${us(result.bridge_cpu_us_per_step - result.bridge_main_cpu_us_per_step)}), Python ${us(result.python_cpu_us_per_step)} µs ` +
      `(HTTP client ${us(result.python_http_cpu_us_per_step)}, decoding ${us(result.python_decode_cpu_us_per_step)}, the rest ${us(pythonRest)}); ` +
      `${result.requests_per_step.toFixed(2)} requests a step; the same client's whoami round trips ${result.whoami_round_trips_per_s.toFixed(0)}/s; ` +
      `${result.resets} resets; load average ${result.loadavg_before.map((l) => l.toFixed(1)).join(' ')} before, ${result.load1.toFixed(1)} after`,
  });
  process.stderr.write(`  pettingzoo: ${result.steps_per_s.toFixed(0)} steps/s, bridge ${share}% of a step\n`);
}
