// npm run mutate [-- GROUP...]: mutation testing with StrykerJS (issue 16), outside `npm test`.
// Each group mutates one part of the bridge and runs only the tap files that test it, each file
// straight under node (no tap runner: it is started once a mutant), through Stryker's command
// runner; a file that fails (non-zero exit) kills the mutant. Groups run one after another, each
// writing reports/mutation/<group>.json and .html; the summary at the end lists each group's score
// and every surviving mutant (file:line, mutator, replacement), for docs/reliability.md.
//
// Bounded: only the fast unit files of each part (seconds each), two mutants at a time, and a
// per-mutant timeout; `--since-last` reuses the previous results of unchanged code (incremental).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Stryker } from '@stryker-mutator/core';

interface Group {
  name: string;
  mutate: string[];
  tests: string[];
}

export const GROUPS: readonly Group[] = [
  { name: 'admission', mutate: ['src/admission/**/*.ts'], tests: ['test/admission/semaphore.test.ts', 'test/admission/waiters.test.ts'] },
  {
    name: 'auth',
    mutate: ['src/auth/**/*.ts'],
    tests: ['test/auth/credentials.test.ts', 'test/auth/rules.test.ts', 'test/hardening/token-prefix.test.ts', 'test/http/authorize.test.ts'],
  },
  { name: 'dispatch', mutate: ['src/dispatch/**/*.ts'], tests: ['test/dispatch/dispatcher.test.ts'] },
  { name: 'session', mutate: ['src/session/**/*.ts'], tests: ['test/session/session.test.ts', 'test/session/reload.test.ts'] },
  {
    name: 'config',
    mutate: ['src/config/**/*.ts'],
    tests: ['test/config/load.test.ts', 'test/config/agents.test.ts', 'test/config/kill-switch.test.ts', 'test/hardening/kill-switch-flips.test.ts'],
  },
];

interface MutantResult {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

const args = process.argv.slice(2);
const incremental = args.includes('--since-last');
const wanted = args.filter((a) => !a.startsWith('--'));
const groups = GROUPS.filter((g) => wanted.length === 0 || wanted.includes(g.name));
mkdirSync('reports/mutation', { recursive: true });

const summary: string[] = [];
for (const group of groups) {
  const started = Date.now();
  const command = group.tests.map((file) => `node --import tsx ${file} > /dev/null`).join(' && ');
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
    incremental,
    incrementalFile: `reports/mutation/${group.name}.incremental.json`,
    tempDirName: '.stryker-tmp',
    ignorePatterns: ['.tap', 'coverage', 'dist', 'reports', 'bench/results', '.bridge'],
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
