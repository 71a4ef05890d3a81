// npm run mutate [-- GROUP...]: mutation testing with StrykerJS, outside `npm test`.
// Each group mutates one part of the bridge and runs only the tap files that test it, all in one
// node process (scripts/mutate-tests.ts; no tap runner: it is started once a mutant), through
// Stryker's command runner; a failing test (non-zero exit) kills the mutant. Groups run one after another, each
// writing reports/mutation/<group>.json and .html; the summary at the end lists each group's score
// and every surviving mutant (file:line, mutator, replacement), for docs/reliability.md.
//
// Bounded: only the fast unit files of each part (seconds each), two mutants at a time, and a
// per-mutant timeout; `--since-last` reuses the previous kills of unchanged code (incremental) and
// tests every other mutant again: the command runner reports no per-test coverage, so Stryker
// itself would reuse a survivor's result even after a test that kills it was added.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Stryker } from '@stryker-mutator/core';

interface Group {
  name: string;
  mutate: string[];
  tests: string[];
}

export const GROUPS: readonly Group[] = [
  {
    name: 'admission',
    mutate: ['src/admission/**/*.ts'],
    tests: [
      'test/admission/semaphore.test.ts',
      'test/admission/waiters.test.ts',
      'test/admission/capped-leases.test.ts',
      'test/admission/transfer-gate.test.ts',
    ],
  },
  {
    name: 'auth',
    mutate: ['src/auth/**/*.ts'],
    tests: ['test/auth/credentials.test.ts', 'test/auth/rules.test.ts', 'test/hardening/token-prefix.test.ts', 'test/http/authorize.test.ts'],
  },
  {
    name: 'dispatch',
    // The dispatcher's logic, and the batch's frame step it runs (units.test.ts holds both); pool.ts
    // and game-thread-host.ts start real threads (Piscina, the game thread) and are left to the
    // bridge suites: docs/reliability.md says why.
    mutate: ['src/dispatch/{drain,execute,game-queue,jobs,timeout-queue}.ts', 'src/commands/action/batch/run.ts'],
    tests: [
      'test/dispatch/dispatcher.test.ts',
      'test/dispatch/units.test.ts',
      'test/dispatch/lockstep-drain.test.ts',
      'test/dispatch/timeout-queue.test.ts',
      'test/dispatch/requests.test.ts',
    ],
  },
  {
    name: 'session',
    mutate: ['src/session/**/*.ts'],
    tests: [
      'test/session/session.test.ts',
      'test/session/reload.test.ts',
      'test/session/turns.test.ts',
      'test/session/reads.test.ts',
      'test/session/pool-calls.test.ts',
    ],
  },
  { name: 'idempotency', mutate: ['src/idempotency/**/*.ts'], tests: ['test/idempotency/store.test.ts'] },
  {
    name: 'events',
    // json-string.ts writes the audit record's text.
    mutate: ['src/events/**/*.ts', 'src/shared/json-string.ts'],
    // audit.test.ts last: its memory case (96 requests of 1 MB) is most of the time, and a mutant
    // the other files kill ends the process before it.
    tests: [
      'test/events/units.test.ts',
      'test/events/visible-seq.test.ts',
      'test/events/history-bytes.test.ts',
      'test/events/fog.test.ts',
      'test/events/parts.test.ts',
      'test/events/hub.test.ts',
      'test/events/subscriber.test.ts',
      'test/events/layer.test.ts',
      'test/events/audit.test.ts',
    ],
  },
  {
    name: 'config',
    mutate: ['src/config/**/*.ts'],
    tests: [
      'test/config/load.test.ts',
      'test/config/agents.test.ts',
      'test/config/agents-examples.test.ts',
      'test/config/agents-watch.test.ts',
      'test/config/file-modes.test.ts',
      'test/config/runtime-claim.test.ts',
      'test/config/kill-switch.test.ts',
      'test/hardening/kill-switch-flips.test.ts',
    ],
  },
];

interface MutantResult {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

/** Drops every result but kills from an incremental report, so those mutants run again. */
function keepOnlyKills(file: string): void {
  const report = JSON.parse(readFileSync(file, 'utf8')) as { files: Record<string, { mutants: MutantResult[] }> };
  for (const entry of Object.values(report.files)) entry.mutants = entry.mutants.filter((m) => m.status === 'Killed' || m.status === 'Timeout');
  writeFileSync(file, JSON.stringify(report));
}

const args = process.argv.slice(2);
const incremental = args.includes('--since-last');
const wanted = args.filter((a) => !a.startsWith('--'));
const groups = GROUPS.filter((g) => wanted.length === 0 || wanted.includes(g.name));
mkdirSync('reports/mutation', { recursive: true });

const summary: string[] = [];
for (const group of groups) {
  const started = Date.now();
  // TAP_BAIL: the first failing assertion ends the process; a killed mutant needs no more.
  const command = `TAP_BAIL=1 node --import tsx scripts/mutate-tests.ts ${group.tests.join(' ')} > /dev/null`;
  const incrementalFile = `reports/mutation/${group.name}.incremental.json`;
  if (incremental && existsSync(incrementalFile)) keepOnlyKills(incrementalFile);
  const stryker = new Stryker({
    testRunner: 'command',
    commandRunner: { command },
    mutate: group.mutate,
    concurrency: Number(process.env.GCB_MUTATE_CONCURRENCY ?? 2),
    timeoutMS: 20_000,
    reporters: ['json', 'html', 'clear-text', 'progress-append-only'],
    jsonReporter: { fileName: `reports/mutation/${group.name}.json` },
    htmlReporter: { fileName: `reports/mutation/${group.name}.html` },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    // Always written, so that a later `--since-last` has a run to start from; `force` tests every mutant.
    incremental: true,
    force: !incremental,
    incrementalFile,
    tempDirName: '.stryker-tmp',
    // .build holds the Python venv (a lib64 link Stryker cannot copy) and nothing a test of src/ reads.
    ignorePatterns: ['.tap', 'coverage', 'dist', 'reports', 'bench/results', '.bridge', '.build', 'python/build'],
    logLevel: 'warn' as never, // a const enum in @stryker-mutator/api: its string value
  });
  await stryker.runMutationTest();
  const report = JSON.parse(readFileSync(`reports/mutation/${group.name}.json`, 'utf8')) as { files: Record<string, { mutants: MutantResult[] }> };
  let killed = 0;
  let total = 0;
  const survivors: string[] = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (m.status === 'CompileError' || m.status === 'Ignored') continue;
      total++;
      if (m.status === 'Killed' || m.status === 'Timeout') killed++;
      else survivors.push(`  ${file}:${m.location.start.line}  ${m.status}  ${m.mutatorName}  ${JSON.stringify(m.replacement ?? '').slice(0, 100)}`);
    }
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  summary.push(`${group.name}: ${killed}/${total} killed (${total ? ((100 * killed) / total).toFixed(1) : '-'}%), ${minutes} min`, ...survivors);
  writeFileSync('reports/mutation/summary.txt', `${summary.join('\n')}\n`);
}
process.stdout.write(`\n${summary.join('\n')}\n`);
