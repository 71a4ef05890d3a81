// `npm run bench:fuzz [-- --cases N] [-- --seed S] [-- --capped] [-- --max-minutes M]`: 10,000
// schema-driven requests (valid and near-valid args, across every command of /capabilities) against
// a bridge on the sandbox world, over the schemas' full ranges (--capped: the cheaper ranges that
// `npm test` uses). Unlike test/hardening/fuzz.test.ts it does not stop at the first problem: it
// records them all and prints each kind once with an example, so one run shows every bug it met.
// Pass criteria: every answer a valid envelope; no 5xx but 503 BUSY and 504; schema-invalid args
// always 400 BAD_ARGS (argument validation never yields GAME_CRASH). Exit code 1 on any problem.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import pino from 'pino';
import { SANDBOX_GAME, startBridge } from '../src/bridge.ts';
import { capabilities, samples, TEST_CAPS } from '../test/hardening/fuzz-setup.ts';
import { inParallel, postRaw, prototypeFingerprint } from '../test/hardening/helpers.ts';
import { describe, Oracle, requestArbitrary, requestText } from '../test/hardening/schema-arbitrary.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string' },
    seed: { type: 'string' },
    capped: { type: 'boolean' },
    'max-minutes': { type: 'string' },
    concurrency: { type: 'string' },
  },
});
const CASES = Number(values.cases ?? 10_000);
const SEED = Number(values.seed ?? Date.now() % 2 ** 31);
const CONCURRENCY = Number(values.concurrency ?? 8);
const DEADLINE = Date.now() + Number(values['max-minutes'] ?? 30) * 60_000;
const log = (line: string) => process.stderr.write(`fuzz: ${line}\n`);

const configDir = mkdtempSync(join(tmpdir(), 'gcb-fuzz-'));
// The bridge runs in this process, whose stderr carries the fuzz's own progress: its log goes to a
// file beside its config instead (10,000 request lines would bury the progress), where a problem's
// requests can be found by command, status and code, and a crash's warnings read.
const logFile = join(configDir, 'bridge.log');
const bridge = await startBridge({ game: SANDBOX_GAME, configDir, port: 0, logDestination: pino.destination({ dest: logFile, sync: false }) });
const target = { url: bridge.url, token: bridge.token };
try {
  const commands = await capabilities(target);
  const oracle = new Oracle(commands);
  const requests = fc.sample(requestArbitrary(commands, { samples: await samples(target), ...(values.capped ? { caps: TEST_CAPS } : {}) }), {
    seed: SEED,
    numRuns: CASES,
  });
  const prototypes = prototypeFingerprint();
  log(
    `${CASES} requests over ${commands.length} commands, seed ${SEED}${values.capped ? ', capped ranges' : ', full ranges'}; config ${configDir}, the bridge's log ${logFile}`,
  );

  const byStatus = new Map<string, number>();
  const problems = new Map<string, { count: number; example: string }>();
  let done = 0;
  let skipped = 0;
  const started = Date.now();
  await inParallel(requests, CONCURRENCY, async (request) => {
    if (Date.now() > DEADLINE) {
      skipped++;
      return;
    }
    const reply = await postRaw(target, requestText(request));
    const key = `${request.name} ${reply.status}${reply.status === 200 ? '' : ` ${reply.body?.error?.code}`}`;
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
    for (const problem of oracle.judge(request, reply)) {
      // One entry per kind of problem: the command and the problem without its variable parts.
      const kind = `${request.name}: ${problem.replace(/'[^']*'|"[^"]*"|\d+/g, '…').slice(0, 140)}`;
      const seen = problems.get(kind);
      if (seen) seen.count++;
      else problems.set(kind, { count: 1, example: describe(request, reply) });
    }
    if (++done % 1000 === 0) log(`${done} done, ${problems.size} kinds of problem so far (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  });
  const deadline = Date.now() + 60_000;
  while (bridge.stats().slotsInUse !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

  const covered = new Set([...byStatus.keys()].map((k) => k.split(' ')[0]));
  const missed = commands.map((c) => c.name).filter((name) => !covered.has(name));
  const checks: Array<[string, boolean]> = [
    [`${done} requests answered (${skipped} skipped by --max-minutes) in ${((Date.now() - started) / 1000).toFixed(0)} s`, skipped === 0],
    [`every command called${missed.length ? `; missed: ${missed.join(', ')}` : ''}`, missed.length === 0],
    [`${problems.size} kinds of problem`, problems.size === 0],
    ['built-in prototypes unchanged', prototypeFingerprint() === prototypes],
    [`slots back to 0 (${bridge.stats().slotsInUse})`, bridge.stats().slotsInUse === 0],
  ];
  process.stdout.write(`\nbench:fuzz, seed ${SEED}\n`);
  for (const [line, ok] of checks) process.stdout.write(`${ok ? '  ' : '✗ '}${line}\n`);
  process.stdout.write(
    `\nanswers by command, status and code:\n${[...byStatus]
      .sort()
      .map(([k, v]) => `  ${k}: ${v}`)
      .join('\n')}\n`,
  );
  if (problems.size > 0) {
    process.stdout.write(`\nproblems (kind × count, one example each):\n`);
    for (const [kind, { count, example }] of [...problems].sort((a, b) => b[1].count - a[1].count))
      process.stdout.write(`  ${count} × ${kind}\n      e.g. ${example}\n`);
  }
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
} finally {
  await bridge.close();
}
