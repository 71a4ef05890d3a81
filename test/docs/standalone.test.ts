// The repository stands alone: no file points outside it (at a `shared` folder beside the checkout,
// where the contract once lived), and every rule the code cites exists in docs/: `decisions §N` in
// docs/decisions.md, `spec rule N` and `spec step N` in docs/spec.md (docs/architecture.md says so).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import t from 'tap';
import { REPO_ROOT as ROOT_DIR } from '../helpers/paths.ts';

const REPO_ROOT = resolve(ROOT_DIR); // no trailing separator

/** Not part of the tree: dependencies, git, and what builds, tests and runs leave behind. */
const SKIP = new Set(['node_modules', '.git', 'dist', '.build', '.tap', 'coverage']);
const SKIP_PREFIX = '.bridge'; // config dirs of local runs (.bridge, .bridge-example)

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith(SKIP_PREFIX)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(path, out);
    else if (entry.isFile() && statSync(path).size < 4 * 1024 * 1024) out.push(path);
  }
  return out;
}

// Built from parts so that this file does not match its own patterns.
const SHARED = 'shared';
const DEC = 'decisions';
const SPEC = 'spec';
const SHARED_DOC = new RegExp(`${SHARED}/(spec|decisions)\\.md`, 'g');
const UP_TO_SHARED = new RegExp(`(?:\\.\\./)+${SHARED}\\b`, 'g');
const DECISIONS = /decisions(?:\]\([^)]*\))? §(\d+)((?:(?:,| and| or| to|–)\s*§\d+)*)/gi;
const SPEC_NUMBERED = /spec (rule|step)s? (\d+)/gi;

interface Finding {
  file: string;
  line: number;
  problem: string;
}

/** What is wrong in one file of the tree (`file` relative to the root). */
function problemsIn(file: string, text: string, sections: ReadonlySet<number>, rules: ReadonlySet<number>, steps: ReadonlySet<number>): Finding[] {
  const findings: Finding[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(SHARED_DOC)) findings.push({ file, line: lineOf(match.index), problem: `points at ${match[0]} outside the repository` });
  for (const match of text.matchAll(UP_TO_SHARED)) {
    const target = resolve(REPO_ROOT, dirname(file), match[0]);
    if (target !== REPO_ROOT && !target.startsWith(REPO_ROOT + sep))
      findings.push({ file, line: lineOf(match.index), problem: `${match[0]} leads outside the repository` });
  }
  for (const match of text.matchAll(DECISIONS)) {
    const cited = [Number(match[1]), ...[...(match[2] ?? '').matchAll(/§(\d+)/g)].map((m) => Number(m[1]))];
    for (const n of cited)
      if (!sections.has(n)) findings.push({ file, line: lineOf(match.index), problem: `cites decisions §${n}, which docs/decisions.md lacks` });
  }
  for (const match of text.matchAll(SPEC_NUMBERED)) {
    const kind = match[1]!.toLowerCase();
    const n = Number(match[2]);
    if (!(kind === 'rule' ? rules : steps).has(n))
      findings.push({ file, line: lineOf(match.index), problem: `cites spec ${kind} ${n}, which docs/spec.md lacks` });
  }
  return findings;
}

const numbers = (text: string, pattern: RegExp) => new Set([...text.matchAll(pattern)].map((m) => Number(m[1])));
const decisionsDoc = readFileSync(join(REPO_ROOT, 'docs/decisions.md'), 'utf8');
const specDoc = readFileSync(join(REPO_ROOT, 'docs/spec.md'), 'utf8');
const SECTIONS = numbers(decisionsDoc, /^## §(\d+)\. /gm);
const RULES = numbers(specDoc, /\*\*Rule (\d+)\.\*\*/g);
const STEPS = numbers(specDoc, /\*\*Step (\d+)\*\*/g);

t.test('docs/decisions.md has §1..§16 and docs/spec.md rules 1..5 and steps 1..6', async (t) => {
  t.same([...SECTIONS], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
  t.same([...RULES], [1, 2, 3, 4, 5]);
  t.same([...STEPS], [1, 2, 3, 4, 5, 6]);
});

t.test('no file points outside the repository, and every cited rule exists', async (t) => {
  const files = listFiles(REPO_ROOT);
  t.ok(files.length > 200, `${files.length} files scanned`);
  const findings: Finding[] = [];
  let citations = 0;
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    if (text.includes('\0')) continue; // binary
    citations += [...text.matchAll(DECISIONS)].length + [...text.matchAll(SPEC_NUMBERED)].length;
    findings.push(...problemsIn(relative(REPO_ROOT, path), text, SECTIONS, RULES, STEPS));
  }
  t.ok(citations > 50, `${citations} citations checked`);
  t.same(
    findings.map((f) => `${f.file}:${f.line}: ${f.problem}`),
    [],
  );
});

t.test("the check finds what it is for, and leaves the tree's own shared/ folder alone", async (t) => {
  const check = (file: string, text: string) => problemsIn(file, text, SECTIONS, RULES, STEPS).map((f) => f.problem);
  t.match(check('README.md', `see [the spec](../${SHARED}/spec.md)`), [/spec\.md outside/, /leads outside/]);
  t.match(check('docs/protocol.md', `Decisions §5 of \`${SHARED}/${DEC}.md\``), [/decisions\.md outside/]);
  t.match(check('test/x.ts', `// ${DEC} §18: nothing`), [/§18, which/]);
  t.match(check('src/x.ts', `// ${DEC} §2 and §17`), [/§17, which/]);
  t.match(check('docs/x.md', `[${DEC}](${DEC}.md) §0`), [/§0, which/]);
  t.match(check('src/x.ts', `// ${SPEC} rule 9, ${SPEC} step 7`), [/rule 9, which/, /step 7, which/]);
  t.same(check('src/auth/credentials.ts', `import type { CallerContext } from '../${SHARED}/caller.ts'; // ${DEC} §4, ${SPEC} step 2`), []);
  t.same(check('src/http/routes/cmd.ts', `from '../../${SHARED}/layout.ts'; // ${DEC} §7 to §11`), []);
});
