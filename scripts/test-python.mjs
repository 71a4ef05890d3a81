#!/usr/bin/env node
// The Python package's tests (python/tests, pytest), as `npm test` runs them: in the venv of
// scripts/python-venv.mjs, from the repository root, so that each env finds the bridge of this
// checkout (`node bin/gcb.js`, which `npm test` has just compiled). When the packages cannot be
// installed the run fails with one line saying so: it never skips. Ends with tap's totals line,
// which scripts/test.mjs reads.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureVenv, PACKAGE, ROOT, VenvError } from './python-venv.mjs';

let python;
try {
  python = ensureVenv();
} catch (err) {
  if (!(err instanceof VenvError)) throw err;
  process.stdout.write(`test-python: the Python tests did not run: ${err.message}\n# { total: 1, pass: 0 }\n`);
  process.exit(1);
}

const started = Date.now();
const pytest = spawnSync(python, ['-m', 'pytest', join(PACKAGE, 'tests'), '-p', 'no:cacheprovider', '-q', '-rfE', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
  env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
});
const output = pytest.stdout ?? '';
process.stdout.write(output);
const summary = output.trim().split('\n').at(-1) ?? '';
const count = (word) => Number(summary.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0);
const passed = count('passed');
const total = passed + count('failed') + count('errors?') + count('skipped');
// A skipped test is not a pass: these tests never skip.
const ok = pytest.status === 0 && total > 0 && passed === total;
process.stdout.write(
  `# python: ${((Date.now() - started) / 1000).toFixed(1)} s of pytest\n# { total: ${Math.max(total, 1)}, pass: ${ok ? passed : Math.min(passed, Math.max(total, 1) - 1)} }\n`,
);
process.exit(ok ? 0 : 1);
