#!/usr/bin/env node
// `npm test [-- FILE ...]`: the whole tree compiled once (tsconfig.test.json → .build/), then tap on
// the compiled tests. Plain JavaScript so that it needs no loader itself.
//
// Why compiled: under tsx every thread of every bridge a test starts registers the loader and
// compiles its imports; a bridge cost 4.7 s of CPU that way against 1.8 s compiled, and the suite
// is CPU-bound on a 2-core machine.
//
// Two lanes run side by side: the files that mostly wait for a real clock (the spec's 5 s, 30 s,
// 60 s rules, slow clients, crashed processes) all at once in their own lane, so none of them holds
// one of the two CPU-bound runner slots while it only waits. `npx tap test/x.test.ts` still runs one
// file from sources (.taprc), which is the quickest way to iterate on it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD = join(ROOT, '.build');
const RC = join(ROOT, 'test/build.taprc');

/** Files that spend most of their time waiting for a clock, not using a CPU. */
const CLOCK_LANE = new Set([
  'test/timing/deadline-and-backstop.test.ts',
  'test/timing/admission-and-reload.test.ts',
  'test/bridge/pool-faults.test.ts',
  'test/hardening/slow-clients.test.ts',
  'test/hardening/aborts.test.ts',
  'test/hardening/pool-workers.test.ts',
  'test/multi-agent/turn-timeout.test.ts',
]);

const args = process.argv.slice(2);
const noBuild = args.includes('--no-build');
const wanted = args.filter((a) => !a.startsWith('--'));

if (!noBuild) {
  // dist/ too: compiled examples import the package by name (`game-control-bridge/game`), which
  // resolves through package.json `exports` into dist/, as it does for a user of the package.
  for (const config of ['tsconfig.test.json', 'tsconfig.build.json']) {
    // --noCheck: emit only. Types are checked by `npm run lint` (which .ci/run runs first); checking
    // them here again cost 9 s of the run's CPU.
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, config), '--noCheck'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    if (tsc.status !== 0) process.stderr.write(`${tsc.stdout}\ntest: tsc -p ${config} could not emit everything; running the tests anyway\n`);
  }
  pruneOrphans(join(BUILD, 'test'));
}

ensureTapBuilt();

const toBuilt = (file) => join(BUILD, file.replace(/\.ts$/, '.js'));
const all = wanted.length > 0 ? wanted.map((f) => relative(ROOT, join(process.cwd(), f))) : listTests(join(ROOT, 'test'));
const missing = all.filter((f) => !existsSync(toBuilt(f)));
if (missing.length > 0) {
  process.stderr.write(`test: no compiled file for ${missing.join(', ')} (is it under test/ and named *.test.ts?)\n`);
  process.exit(2);
}
const clock = all.filter((f) => CLOCK_LANE.has(f));
const cpu = all.filter((f) => !CLOCK_LANE.has(f));

const lanes = [];
if (cpu.length > 0) lanes.push(runTap(cpu, 2, 'inherit'));
if (clock.length > 0) lanes.push(runTap(clock, clock.length, 'buffer'));
const results = await Promise.all(lanes);
for (const result of results) if (result.output) process.stdout.write(result.output);
// CI keeps only the tail of a run: what failed is repeated last, where it is seen.
const failures = results.flatMap((r) => failuresOf(r.transcript));
if (failures.length > 0) process.stdout.write(`\n# failures (${failures.length}), repeated from above:\n${failures.join('\n')}\n`);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);

/** Each `not ok` line of a TAP transcript with the diagnostics that follow it, a few lines each. */
function failuresOf(transcript) {
  const lines = transcript.split('\n');
  const found = [];
  for (const [i, line] of lines.entries()) {
    if (/^not ok \d+ - /.test(line)) {
      found.push(line); // a file: named alone (it may have failed with no assertion, by a crash or timeout)
      continue;
    }
    // Assertions only: a subtest's own `not ok` (with its time) repeats its children.
    if (!/^\s+not ok /.test(line) || / # time=[\d.]+ms$/.test(line)) continue;
    const depth = line.search(/\S/);
    const detail = [];
    for (const next of lines.slice(i + 1, i + 25)) {
      if (next.search(/\S/) <= depth && /\S/.test(next)) break;
      detail.push(next);
    }
    found.push([line, ...detail.slice(0, 14)].join('\n'));
  }
  return found.slice(0, 30);
}

function runTap(files, jobs, mode) {
  const tap = join(ROOT, 'node_modules/tap/dist/esm/run.mjs');
  const child = spawn(process.execPath, [tap, `--jobs=${jobs}`, ...files.map(toBuilt)], {
    cwd: ROOT,
    // --no-experimental-require-module: on Node 20.19+ piscina's require() of an ES module under
    // tap's process hooks aborted V8 twice here ("IsGraphAsync must be used on an instantiated
    // module", SIGABRT); piscina then falls back to import(), which is what it does on Node 20.18.
    env: { ...process.env, TAP_RCFILE: RC, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --no-experimental-require-module`.trim() },
    // Piped in both modes: the transcript is kept to repeat the failures at the end.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (mode === 'inherit') process.stdout.write(chunk);
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
    if (mode === 'inherit') process.stderr.write(chunk);
  });
  return new Promise((resolve) =>
    child.on('exit', (code) =>
      resolve({ code, transcript: output, output: mode === 'inherit' || !output ? '' : `\n# clock lane (${files.length} files)\n${output}` }),
    ),
  );
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
    // --no-experimental-require-module: on Node 20.19+ piscina's require() of an ES module under
    // tap's process hooks aborted V8 twice here ("IsGraphAsync must be used on an instantiated
    // module", SIGABRT); piscina then falls back to import(), which is what it does on Node 20.18.
    env: { ...process.env, TAP_RCFILE: RC, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --no-experimental-require-module`.trim() },
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
