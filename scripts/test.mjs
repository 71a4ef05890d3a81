#!/usr/bin/env node
// `npm test [-- FILE ...]`: the whole tree compiled once (tsconfig.test.json → .build/), then the
// test files run by `node` itself, several processes at a time: the longer files one to a process,
// the short ones of scripts/test-lanes.mjs about twelve to a process (scripts/test-group.mjs).
// Plain JavaScript so that it needs no loader itself.
//
// Why compiled: under tsx every thread of every bridge a test starts registers the loader and
// compiles its imports; a bridge cost 4.7 s of CPU that way against 1.8 s compiled, and the suite
// is CPU-bound on a 2-core machine.
//
// Why not tap's runner: it starts every test process with `--import @tapjs/processinfo`, whose
// module hooks then run in every process and worker thread the test starts too. Measured here
// (2026-11-26): a bridge started, asked one command and closed cost 3.1 s of CPU under those hooks
// against 1.05 s without, and an empty test file 1.15 s against 0.47 s. The hooks serve tap's
// coverage and `--changed`, which `npm test` does not use (`npm run coverage` still runs tap).
// A tap file run alone is a complete TAP producer: it honours TAP_TIMEOUT, prints its plan and
// totals, and exits non-zero when an assertion failed.
//
// Scheduling: the files that mostly wait for a real clock (the spec's 5 s, 30 s, 60 s rules, slow
// clients, crashed processes) all start at once and hold no CPU slot; the rest share the CPU slots,
// longest first (by the times of the last run, kept in .build/test-times.json, or else a typical
// run's), so no long file starts last. `npx tap test/x.test.ts` still runs one file from sources (.taprc), which is the
// quickest way to iterate on it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLOCK_LANE, GROUP_SIZE, SHARED_PROCESS, TYPICAL_SECONDS } from './test-lanes.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD = join(ROOT, '.build');
const RC = join(ROOT, 'test/build.taprc');
const TIMES = join(BUILD, 'test-times.json');
/** tap's per-file limit (test/build.taprc `timeout`, seconds); files that need more raise their own. */
const TIMEOUT_S = Number(readFileSync(RC, 'utf8').match(/^timeout:\s*(\d+)/m)?.[1] ?? 60);
/** A file still running after this long is stopped from here (the longest ran 90 s at load 15). */
const WEDGED_MS = 8 * 60_000;
/**
 * CPU slots: one per core, and one more, because no test file keeps its core busy all the time
 * (it waits for bridges, sockets and timers).
 */
const JOBS = Number(process.env.GCB_TEST_JOBS) || availableParallelism() + 1;

const args = process.argv.slice(2);
const noBuild = args.includes('--no-build');
// `python` names the Python package's tests (scripts/test-python.mjs); a full run has them too. pytest
// ignores TAP_TIMEOUT: a stuck test ends itself (python/tests/conftest.py), and WEDGED_MS bounds the rest.
const PYTHON = 'python';
const PYTHON_JOB = 'python/tests (pytest)';
/** The Python tests are one process of many tests (about 4 min of them beside the node files on a loaded machine). */
const PYTHON_WEDGED_MS = 15 * 60_000;
const named = args.filter((a) => !a.startsWith('--'));
const withPython = named.length === 0 || named.includes(PYTHON);
const wanted = named.filter((a) => a !== PYTHON);

if (!noBuild) {
  // dist/ too: compiled examples import the package by name (`game-control-bridge/game`), which
  // resolves through package.json `exports` into dist/, as it does for a user of the package.
  // .build/ with --noCheck, emit only: types are checked by `npm run lint` (which .ci/run runs
  // first); checking the tests' tree here again cost 9 s of CPU. dist/ is checked, as `npm run build`
  // does: test/readme's `npm start` builds again, and after a --noCheck build its incremental build
  // had every file to check, 11 s of CPU late in the run (clean clone: readme 10 → 32 s). The two
  // compilers run side by side (one core each).
  await Promise.all(
    ['tsconfig.test.json', 'tsconfig.build.json'].map((config) => {
      const check = config === 'tsconfig.build.json' ? [] : ['--noCheck'];
      const tsc = spawn(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, config), ...check], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      tsc.stdout.on('data', (chunk) => (out += chunk));
      return new Promise((resolve) =>
        tsc.on('close', (code) => {
          if (code !== 0) process.stderr.write(`${out}\ntest: tsc -p ${config} could not emit everything; running the tests anyway\n`);
          resolve();
        }),
      );
    }),
  );
  // The thread entries bundled, as `npm run build` ships them (scripts/bundle-workers.mjs says why).
  for (const out of ['.build', 'dist']) {
    const bundled = spawnSync(process.execPath, [join(ROOT, 'scripts/bundle-workers.mjs'), out], { stdio: 'inherit' });
    if (bundled.status !== 0) process.exit(bundled.status ?? 1);
  }
  pruneOrphans(join(BUILD, 'test'));
}

ensureTapBuilt();

const toBuilt = (file) => join(BUILD, file.replace(/\.ts$/, '.js'));
const all = wanted.length > 0 || named.length > 0 ? [...new Set(wanted.map((f) => relative(ROOT, join(process.cwd(), f))))] : listTests(join(ROOT, 'test'));
const missing = all.filter((f) => !existsSync(toBuilt(f)));
if (missing.length > 0) {
  process.stderr.write(`test: no compiled file for ${missing.join(', ')} (is it under test/ and named *.test.ts?)\n`);
  process.exit(2);
}

const started = performance.now();
const lastTimes = readTimes();
const clock = all.filter((f) => CLOCK_LANE.has(f));
// With no earlier times (a fresh clone): those of a typical run; a grouped file ~2 s, as it averages.
const expectedMs = (file) => lastTimes[file] ?? (TYPICAL_SECONDS[file] ?? (SHARED_PROCESS.has(file) ? 2 : 0)) * 1000;
const shared = all.filter((f) => SHARED_PROCESS.has(f));
const groups = balance(shared, Math.ceil(shared.length / GROUP_SIZE));
const expectedOf = (job) => (Array.isArray(job) ? job.reduce((sum, file) => sum + expectedMs(file), 0) : expectedMs(job));
const cpu = [...all.filter((f) => !CLOCK_LANE.has(f) && !SHARED_PROCESS.has(f)), ...(shared.length > 1 ? groups : shared)].sort(
  (a, b) => expectedOf(b) - expectedOf(a),
);
const results = [];
let reported = 0;
const report = (result) => {
  results.push(result);
  const counts = result.counts ? ` (${result.counts.pass}/${result.counts.total})` : '';
  process.stdout.write(`${result.ok ? 'ok' : 'not ok'} ${++reported} - ${result.file}${counts} # time=${(result.ms / 1000).toFixed(1)}s\n`);
  // A failing file's whole transcript, where it is seen; passing files stay one line each.
  if (!result.ok) process.stdout.write(`${indent(result.output)}\n`);
};
await Promise.all([
  // From the start, beside the clock lane: it is the longest job (about a minute), and its bridges
  // are separate processes that take their CPU share like any file's.
  ...(withPython ? [runProcess(PYTHON_JOB, [join(ROOT, 'scripts/test-python.mjs')], TIMEOUT_S, PYTHON_WEDGED_MS).then(report)] : []),
  ...clock.map((file) => runFile(file).then(report)),
  runQueue(cpu, JOBS, (job) => (Array.isArray(job) ? runGroup(job) : runFile(job).then(report))),
]);

const failed = results.filter((r) => !r.ok);
const together = failed.filter((r) => r.files?.length === 0).length;
const assertions = results.reduce((sum, r) => ({ total: sum.total + (r.counts?.total ?? 0), pass: sum.pass + (r.counts?.pass ?? 0) }), { total: 0, pass: 0 });
if (named.length === 0) writeTimes(results.filter((r) => r.file !== PYTHON_JOB));
process.stdout.write(
  `\n# ${fileCount(results) - fileCount(failed)} of ${fileCount(results)} files passed${together > 0 ? ` (but ${together} group(s) of them failed together)` : ''}; ${assertions.pass} of ${assertions.total} tests; ${((performance.now() - started) / 1000).toFixed(1)} s (${JOBS} CPU slots, ${clock.length} clock-lane files beside them)\n`,
);
// CI keeps only the tail of a run: what failed is repeated last, where it is seen.
const failures = failed.flatMap((r) => [`not ok - ${r.file}${r.why ? `: ${r.why}` : ''}`, ...failuresOf(r.output)]);
if (failures.length > 0) process.stdout.write(`\n# failures (${failed.length} files), repeated from above:\n${failures.slice(0, 40).join('\n')}\n`);
process.exit(failed.length === 0 ? 0 : 1);

/** `files` dealt into `count` groups of about equal expected time, longest first. */
function balance(files, count) {
  const groups = Array.from({ length: count }, () => ({ files: [], ms: 0 }));
  for (const file of [...files].sort((a, b) => expectedMs(b) - expectedMs(a))) {
    const lightest = groups.reduce((min, g) => (g.ms < min.ms || (g.ms === min.ms && g.files.length < min.files.length) ? g : min));
    lightest.files.push(file);
    lightest.ms += expectedMs(file);
  }
  return groups.map((g) => g.files.sort());
}

function fileCount(list) {
  return list.reduce((sum, r) => sum + (r.files?.length ?? 1), 0);
}

/** Runs `task` over `items`, at most `jobs` at a time, in order. */
async function runQueue(items, jobs, task) {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
}

/**
 * Several files in one process, imported in turn: their tests become subtests of one root, run one
 * after another. Reported as one line; when it fails, each file is run again alone and reported.
 */
async function runGroup(files) {
  const timeoutS = TIMEOUT_S + 30 * files.length;
  const label = `${files.length} files in one process (${files[0]} … ${files.at(-1)})`;
  const result = await runProcess(label, [join(ROOT, 'scripts/test-group.mjs'), ...files.map(toBuilt)], timeoutS);
  if (result.ok) return report({ ...result, files });
  const alone = [];
  for (const file of files) alone.push(await runFile(file));
  alone.forEach(report);
  // Each passing alone means either the files disturb one another or a test depends on timing
  // that the run alone happened to meet: both are failures, of the group. Its files are counted
  // once, by their runs alone. (2026-11-26 in CI: the second, a turn timer test.)
  if (alone.every((r) => r.ok))
    report({
      ...result,
      why: `${result.why}; each file passed alone, so one of them leaves state behind that another trips on, or a test is timing-sensitive (the failed assertion above names it)`,
      files: [],
      counts: null,
    });
}

/** One test file in a process of its own; resolves with what it printed and how it ended. */
function runFile(file) {
  return runProcess(file, [toBuilt(file)], TIMEOUT_S);
}

function runProcess(file, argv, timeoutS, wedgedMs = WEDGED_MS) {
  const t0 = performance.now();
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: {
      ...process.env,
      TAP_RCFILE: RC,
      TAP_TIMEOUT: String(timeoutS),
      // In NODE_OPTIONS, not the file's own arguments, so that the bridge processes a test starts
      // have them too: --enable-source-maps, because stacks (GAME_CRASH's stack_top, a failure's
      // trace) must name the .ts sources.
      NODE_OPTIONS: nodeOptions('--enable-source-maps'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // tap ends a file at its own timeouts (TAP_TIMEOUT, and what its tests set, up to 180 s); this only
  // stops a process wedged past all of them, so that a run always ends.
  const watchdog = setTimeout(() => child.kill('SIGKILL'), wedgedMs);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      const counts = countsOf(output);
      const why =
        signal === 'SIGKILL'
          ? `still running after ${wedgedMs / 60_000} min: killed`
          : signal
            ? `ended by ${signal}`
            : code !== 0
              ? `exit code ${code}`
              : counts === null
                ? 'no totals printed'
                : '';
      resolve({ file, ok: why === '', why, counts, output, ms: performance.now() - t0 });
    }),
  );
}

/**
 * NODE_OPTIONS for the processes started here: the caller's, `extra`, and always
 * --no-experimental-require-module: on Node 20.19+ piscina's require() of an ES module under module
 * hooks aborted V8 twice here ("IsGraphAsync must be used on an instantiated module", SIGABRT);
 * piscina then falls back to import(), which is what it does on Node 20.18.
 */
function nodeOptions(...extra) {
  return [process.env.NODE_OPTIONS ?? '', ...extra, '--no-experimental-require-module'].join(' ').trim();
}

/** The totals tap prints last: `# { total: 12, pass: 12 }`. */
function countsOf(output) {
  const match = output.match(/^# \{ total: (\d+), pass: (\d+)/m);
  return match ? { total: Number(match[1]), pass: Number(match[2]) } : null;
}

function indent(text) {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES, 'utf8'));
  } catch {
    return {};
  }
}

function writeTimes(list) {
  // A group's time is shared out evenly among its files.
  const times = list.flatMap((r) => (r.files ?? [r.file]).map((file) => [file, Math.round(r.ms / (r.files?.length ?? 1))]));
  writeFileSync(TIMES, JSON.stringify(Object.fromEntries(times), null, 1));
}

/** Each `not ok` line of a TAP transcript with the diagnostics that follow it, a few lines each. */
function failuresOf(transcript) {
  const lines = transcript.split('\n');
  const found = [];
  for (const [i, line] of lines.entries()) {
    // Assertions only: a subtest's own `not ok` (with its time) repeats its children.
    if (!/^\s*not ok /.test(line) || / # time=[\d.]+ms$/.test(line)) continue;
    const depth = line.search(/\S/);
    const detail = [];
    for (const next of lines.slice(i + 1, i + 25)) {
      if (next.search(/\S/) <= depth && /\S/.test(next)) break;
      detail.push(next);
    }
    found.push([line, ...detail.slice(0, 14)].join('\n'));
  }
  return found.slice(0, 10);
}

/**
 * tap rebuilds itself when its configured plugins change, from inside whichever runner notices;
 * two lanes noticing at once would write its generated files together. So the build happens here,
 * once, when the plugin list differs from the one of the last build.
 */
function ensureTapBuilt() {
  // The stamp lives inside tap's generated folder, so `npm ci` (which removes that folder) removes it too.
  const stamp = join(ROOT, 'node_modules/@tapjs/test/test-built/gcb-plugins.stamp');
  const wanted = `${readFileSync(join(ROOT, 'node_modules/tap/package.json'), 'utf8').match(/"version": "([^"]+)"/)?.[1]}\n${readFileSync(RC, 'utf8').match(/^plugin:\n(?:\s+(?:- .*|#.*)\n)+/m)?.[0]}`;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  const built = spawnSync(process.execPath, [join(ROOT, 'node_modules/tap/dist/esm/run.mjs'), 'build'], {
    cwd: ROOT,
    env: { ...process.env, TAP_RCFILE: RC, NODE_OPTIONS: nodeOptions() },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
  writeFileSync(stamp, wanted);
}

function listTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listTests(path));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(ROOT, path));
  }
  return found.sort();
}

/** A compiled file whose source is gone (a test deleted or renamed) must not run. */
function pruneOrphans(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      pruneOrphans(path);
      continue;
    }
    const source = join(ROOT, relative(BUILD, path)).replace(/\.js(\.map)?$/, '.ts');
    if (/\.js(\.map)?$/.test(entry.name) && !existsSync(source) && !statSync(path).isDirectory()) rmSync(path);
  }
}
