// scripts/python-venv.mjs --if-made: `npm run bench -- --quick` must not spend minutes making the
// Python venv, so with --if-made nothing is made: a venv that is not ready (here: an interpreter
// that cannot make one) gives no python and no error, where a plain run tries to make it and fails.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.ts';

const script = join(REPO_ROOT, 'scripts/python-venv.mjs');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [script, ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, GCB_PYTHON: '/nonexistent/python3' } });

t.test('--if-made with no usable venv: nothing printed, nothing tried, exit 0', async (t) => {
  const quick = run('--if-made');
  t.equal(quick.status, 0);
  t.equal(quick.stdout, '');
  t.equal(quick.stderr, '');
});

t.test('without it, the venv is made, so an interpreter that cannot make one is an error', async (t) => {
  const full = run();
  t.equal(full.status, 1);
  t.match(full.stderr, /could not run \/nonexistent\/python3/);
});

t.test('--train with --if-made makes nothing either; --train alone makes the training venv', async (t) => {
  const quick = run('--train', '--if-made');
  t.equal(quick.status, 0);
  t.equal(quick.stdout, '');
  const full = run('--train');
  t.equal(full.status, 1);
  t.match(full.stderr, /could not run \/nonexistent\/python3/);
});
