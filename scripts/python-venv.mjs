// The virtual environment the Python package's tests and benchmark run in: .build/python-venv, with
// the package installed as a user would (`pip install ./python`, not editable) and pytest. It is
// made again only when its inputs change (python/pyproject.toml, the interpreter), and the package
// reinstalled only when its sources change, so a run after the first costs a hash of a few files.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PACKAGE = join(ROOT, 'python');
// Beside the package's own dependencies: pytest, ray (the Ray actors test, python/tests/test_ray.py;
// never torch), and setuptools to build the package without fetching a fresh copy of the build
// backend on every install.
const EXTRA = ['pytest>=7', 'ray>=2.9', 'setuptools>=61', 'wheel'];

/**
 * The two venvs: `test` is what npm test and the benchmark's env rows run in; `train` adds the
 * package's [train] extra (torch CPU, matplotlib), what `npm run bench -- --only learn` trains in.
 * Apart, so that npm test never installs torch (about 700 MB).
 */
const KINDS = {
  test: { dir: 'python-venv', spec: PACKAGE },
  train: { dir: 'train-venv', spec: `${PACKAGE}[train]` },
};

function paths(kind) {
  const venv = join(ROOT, '.build', KINDS[kind].dir);
  return {
    venv,
    python: join(venv, process.platform === 'win32' ? 'Scripts' : 'bin', 'python'),
    depsStamp: join(venv, 'gcb-deps.stamp'),
    packageStamp: join(venv, 'gcb-package.stamp'),
    spec: KINDS[kind].spec,
  };
}

/** Why the venv could not be made, in one line. */
export class VenvError extends Error {}

function run(command, args, what) {
  // PIP_RETRIES=0: an index that cannot be reached (no network, a proxy that drops the request) fails
  // at once instead of being tried again five times with backoff; a fresh venv here took 158 s more
  // with pip's retries than without.
  const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_RETRIES: process.env.PIP_RETRIES ?? '0' };
  const done = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env });
  if (done.error) throw new VenvError(`could not ${what}: ${done.error.message}`);
  if (done.status !== 0) {
    const last = `${done.stderr}\n${done.stdout}`.trim().split('\n').filter(Boolean).at(-1) ?? `exit code ${done.status}`;
    throw new VenvError(`could not ${what}: ${last.trim()}`);
  }
  return done.stdout;
}

function hashFiles(dir, hash) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__pycache__') hashFiles(path, hash);
    } else if (entry.name.endsWith('.py')) {
      hash.update(relative(PACKAGE, path)).update(readFileSync(path));
    }
  }
  return hash;
}

const stamp = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

/** What the venv's dependencies are made from: the interpreter, pyproject.toml and EXTRA. */
function depsKeyOf(python, kind) {
  const version = run(python, ['-c', 'import sys; print(sys.executable, sys.version)'], `run ${python}`).trim();
  const pyproject = readFileSync(join(PACKAGE, 'pyproject.toml'));
  return createHash('sha256')
    .update(version)
    .update(pyproject)
    .update(EXTRA.join(' '))
    .update(kind === 'test' ? '' : kind)
    .digest('hex');
}

/**
 * Whether the venv is made, its dependencies up to date, so that ensureVenv() at most reinstalls
 * the package (seconds) rather than making it again (about 2 minutes: numpy, gymnasium, pettingzoo).
 */
export function venvMade(kind = 'test') {
  const { python, depsStamp } = paths(kind);
  if (!existsSync(python) || !existsSync(depsStamp)) return false;
  try {
    return stamp(depsStamp) === depsKeyOf(process.env.GCB_PYTHON || 'python3', kind);
  } catch (err) {
    if (err instanceof VenvError) return false;
    throw err;
  }
}

/** The venv's python, made or brought up to date first; throws VenvError. `GCB_PYTHON` picks the interpreter. */
export function ensureVenv(kind = 'test') {
  const interpreter = process.env.GCB_PYTHON || 'python3';
  const { venv, python, depsStamp, packageStamp, spec } = paths(kind);
  const depsKey = depsKeyOf(interpreter, kind);
  const pyproject = readFileSync(join(PACKAGE, 'pyproject.toml'));
  if (stamp(depsStamp) !== depsKey || !existsSync(python)) {
    rmSync(venv, { recursive: true, force: true });
    run(interpreter, ['-m', 'venv', venv], `make a virtual environment (${interpreter} -m venv)`);
    run(python, ['-m', 'pip', 'install', '--quiet', ...EXTRA, spec], `install the Python packages (pip install ${relative(ROOT, spec)} pytest)`);
    writeFileSync(depsStamp, depsKey);
    rmSync(packageStamp, { force: true });
  }
  const packageKey = hashFiles(join(PACKAGE, 'gcb_env'), createHash('sha256')).update(pyproject).digest('hex');
  if (stamp(packageStamp) !== packageKey) {
    run(
      python,
      ['-m', 'pip', 'install', '--quiet', '--no-deps', '--no-build-isolation', '--force-reinstall', PACKAGE],
      'install the package (pip install ./python)',
    );
    writeFileSync(packageStamp, packageKey);
  }
  return python;
}

// `node scripts/python-venv.mjs [--if-made] [--train]`: make the venv and print its python (the
// benchmark runs it so). --if-made: only if the venv is made already (at most the package is
// reinstalled); else print nothing and build nothing (`npm run bench -- --quick` must not spend
// minutes on it). --train: the training venv instead.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const kind = process.argv.includes('--train') ? 'train' : 'test';
  try {
    if (!process.argv.includes('--if-made') || venvMade(kind)) process.stdout.write(`${ensureVenv(kind)}\n`);
  } catch (err) {
    if (!(err instanceof VenvError)) throw err;
    process.stderr.write(`python-venv: ${err.message}\n`);
    process.exit(1);
  }
}
