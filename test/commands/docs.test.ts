// docs/commands.md is generated from GET /capabilities (scripts/gen-docs.ts), and the table of
// docs/game-module.md from the commands' binds: this fails when either committed file is out of
// date. Fix: `npm run docs`.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/paths.ts';

const run = promisify(execFile);
const root = REPO_ROOT;

t.test('docs/commands.md matches the capabilities', async (t) => {
  try {
    // As `npm run docs -- --check` runs it: from sources.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/gen-docs.ts', '--check'], { cwd: root, timeout: 50_000 });
    t.match(stdout, /up to date/);
  } catch (err) {
    const failure = err as { stderr?: string; code?: number };
    t.fail(`gen-docs --check failed (exit ${failure.code}): ${failure.stderr ?? String(err)}`);
  }
});

// The "needs" lines and the function table come from each command's binds (spec rule 3). These
// read the committed files, so a change of binds without `npm run docs` fails here by name, and
// the check above fails on the whole file.
t.test("docs/commands.md has each command's needs line, from its binds", async (t) => {
  const { needsLine } = await import('../../scripts/gen-docs.ts');
  const { COMMANDS } = await import('../../src/commands/index.ts');
  const doc = readFileSync(join(root, 'docs/commands.md'), 'utf8');
  for (const def of COMMANDS) {
    const section = doc.slice(doc.indexOf(`\n## ${def.name}\n`)).split('\n## ')[1] ?? '';
    t.ok(section.split('\n').includes(needsLine(def)), `${def.name}: ${needsLine(def)}`);
  }
  t.match(needsLine({ binds: ['getTile', 'worldSize'] }), /^- needs: `getTile`, `worldSize` /);
  t.match(needsLine({ binds: [] }), /nothing from the game module/);
});

t.test('docs/game-module.md has the function → commands table, from the binds', async (t) => {
  const { renderFunctionTable, spliceTable } = await import('../../scripts/gen-docs.ts');
  const { COMMANDS } = await import('../../src/commands/index.ts');
  const doc = readFileSync(join(root, 'docs/game-module.md'), 'utf8');
  const table = renderFunctionTable();
  t.ok(doc.includes(table), 'the committed table is the generated one');
  t.match(table, /\| `getTile` \| `get_tile` \(with `worldSize`\) \|/);
  t.match(table, /\| `worldSize` \| .*`spawn` \(with `spawn`, `listActors`\)/);
  // A changed binds list changes the table, so the committed doc no longer matches.
  const changed = COMMANDS.map((def) => (def.name === 'get_tile' ? { ...def, binds: [...def.binds, 'listTiles' as const] } : def));
  const stale = renderFunctionTable(changed);
  t.not(stale, table);
  t.notOk(doc.includes(stale), 'a binds change without regenerating is caught');
  t.equal(spliceTable(doc, table), doc, 'splicing the current table changes nothing');
  t.throws(() => spliceTable('no markers', table), /lacks the lines that mark its generated table/);
});
