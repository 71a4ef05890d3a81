// bench/lib/report.ts rewrites docs/benchmarks.md from a run; the hand-written sections survive it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { KEPT_SECTIONS, keptSections, mergeReport, writeReport } from '../../bench/lib/report.ts';
import { tempDir } from '../helpers/bridge.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

const report = {
  date: '2026-11-25',
  machine: { cpus: 2, cpu: 'test', memoryGiB: 1, os: 'test', node: 'v20' },
  settings: { durationS: 1 },
  rows: [{ scenario: 'GET /health', value: 1000, unit: 'req/s' }],
};

t.test('a rewrite keeps "Where a request\'s time goes" word for word, and only it', async (t) => {
  const file = pathToFileURL(join(tempDir('gcb-report-'), 'benchmarks.md'));
  const section = "## Where a request's time goes\n\nHand-written: 12 µs in the log line.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
  writeFileSync(file, `# Benchmarks\n\nold table\n\n${section}\n## Generated elsewhere\n\nnot kept\n`);
  writeReport(file, report);
  const text = readFileSync(file, 'utf8');
  t.ok(text.includes(section), 'the section is carried over as written');
  t.notOk(text.includes('old table'), 'the generated part is rewritten');
  t.notOk(text.includes('not kept'), 'other sections are not kept');
  t.ok(text.indexOf('GET /health') < text.indexOf("## Where a request's time goes"), 'after the table');
  writeReport(file, report);
  t.equal(readFileSync(file, 'utf8'), text, 'a second rewrite changes nothing');
});

t.test('no file or no section: nothing kept', async (t) => {
  t.same(keptSections('# Benchmarks\n\n| a |\n'), []);
  const file = pathToFileURL(join(tempDir('gcb-report-'), 'benchmarks.md'));
  writeReport(file, report);
  t.notOk(readFileSync(file, 'utf8').includes('## Where'));
});

t.test('the repository report has every kept section', async (t) => {
  const text = readFileSync(join(REPO_ROOT, 'docs/benchmarks.md'), 'utf8');
  const kept = keptSections(text);
  t.equal(kept.length, KEPT_SECTIONS.length, `docs/benchmarks.md has its hand-written ${KEPT_SECTIONS.join(' and ')}`);
  for (const [i, heading] of KEPT_SECTIONS.entries()) t.ok(kept[i]!.startsWith(`${heading}\n`), heading);
});

t.test('a partial run replaces its rows and adds a new one to the results table, not to a hand-written table', async (t) => {
  const file = pathToFileURL(join(tempDir('gcb-report-'), 'benchmarks.md'));
  writeReport(file, { ...report, rows: [...report.rows, { scenario: 'GET /capabilities', value: 900, unit: 'req/s' }] });
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n## Where a request's time goes\n\n| hand | written |\n|---|---|\n| 1 | 2 |\n`);
  mergeReport(file, {
    date: '2026-11-26',
    only: ['health'],
    settings: { durationS: 1 },
    rows: [
      { scenario: 'GET /health', value: 2000, unit: 'req/s' },
      { scenario: 'a new scenario', value: 3, unit: 'MB' },
    ],
  });
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
  t.match(lines[at('| GET /health |')], /\| 2000 req\/s \|/, 'the measured row is replaced');
  t.equal(at('| a new scenario |'), at('| GET /capabilities |') + 1, 'the new row follows the last row of the results table');
  t.ok(at('| a new scenario |') < at("## Where a request's time goes"));
  t.ok(at('Partial run `--only health` on 2026-11-26') !== -1, 'the partial run is noted');
});
