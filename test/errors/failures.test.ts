// src/errors/failures.ts is the one place a failure is built: every code of the table has its
// factory, which gives exactly the spec's shape (exception and did_you_mean only where that code
// carries them, only when given), the thrown form is built on it, and no module of src/ or workers/
// outside src/errors/ writes a failure by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { badArgs, errorOf, failureOf, gameRejected, outOfBounds, unknownAsset } from '../../src/errors/bridge-error.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/errors/codes.ts';
import * as failures from '../../src/errors/failures.ts';
import type { Failure } from '../../src/errors/failures.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** BAD_ARGS → badArgsFailure: the name says the code and that a plain Failure comes back. */
const factoryName = (code: ErrorCode) => `${code.toLowerCase().replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase())}Failure`;

const EXCEPTION = { type: 'Error', message: 'm', stack_top: 'at x' };
const PLAIN = [{ extras: [], carries: {} }];
const SUGGESTIONS = [
  { extras: [], carries: {} },
  { extras: [['human', 'humanoid']], carries: { did_you_mean: ['human', 'humanoid'] } },
];

/** spec: Errors. What each code's factory takes after the message, and what the failure then carries. */
const CASES: Record<ErrorCode, Array<{ extras: unknown[]; carries: Partial<Failure> }>> = {
  UNKNOWN_COMMAND: SUGGESTIONS,
  BAD_ARGS: SUGGESTIONS,
  UNKNOWN_ASSET: [
    { extras: [[]], carries: { did_you_mean: [] } },
    { extras: [['human']], carries: { did_you_mean: ['human'] } },
  ],
  OUT_OF_BOUNDS: PLAIN,
  GAME_REJECTED: [{ extras: [EXCEPTION], carries: { exception: EXCEPTION } }],
  GAME_CRASH: [{ extras: [EXCEPTION], carries: { exception: EXCEPTION } }],
  MAIN_THREAD_TIMEOUT: PLAIN,
  UNAUTHORIZED: PLAIN,
  DISABLED: PLAIN,
  BUSY: PLAIN,
  PERMISSION_DENIED: PLAIN,
  FACTION_SCOPE_VIOLATION: PLAIN,
  TURN_NOT_YOURS: PLAIN,
};

t.test('every error code has its factory, giving exactly the plain Failure of that code', async (t) => {
  t.same(Object.keys(CASES).sort(), [...CODES].sort(), 'the cases walk the whole table');
  const factories = Object.keys(failures).filter((name) => name.endsWith('Failure'));
  t.same(factories.sort(), CODES.map(factoryName).sort(), 'one factory per code, and none for anything else');
  for (const code of CODES) {
    const factory = (failures as unknown as Record<string, (message: string, ...extras: unknown[]) => Failure>)[factoryName(code)];
    if (typeof factory !== 'function') {
      t.fail(`${code} has no factory ${factoryName(code)}`);
      continue;
    }
    for (const { extras, carries } of CASES[code]) {
      const failure = factory(`a ${code}`, ...extras);
      t.strictSame(failure, { ok: false, code, message: `a ${code}`, ...carries }, `${code} with ${JSON.stringify(extras)}`);
      t.same(Object.keys(failure), ['ok', 'code', 'message', ...Object.keys(carries)], `${code}: no key beyond what it carries`);
      // The thrown form is the same failure: it crosses back unchanged, with the table's status.
      const thrown = errorOf(failure);
      t.equal(thrown.status, ERROR_STATUS[code], `${code} is ${ERROR_STATUS[code]}`);
      t.strictSame(failureOf(thrown), failure, `${code} survives errorOf and failureOf`);
    }
  }
});

t.test("the game's shortcuts throw their code's failure", async (t) => {
  t.strictSame(failureOf(badArgs('no such x')), failures.badArgsFailure('no such x'));
  t.strictSame(failureOf(outOfBounds('(9, 9) is off the map')), failures.outOfBoundsFailure('(9, 9) is off the map'));
  t.strictSame(
    failureOf(unknownAsset('tile', 'gras', ['grass', 'sand'])),
    failures.unknownAssetFailure("tile 'gras' does not exist in this game build", ['grass', 'sand']),
  );
  const rejected = gameRejected('no sheep on water');
  t.strictSame(failureOf(rejected), failures.gameRejectedFailure('no sheep on water', rejected.exception!));
  t.match(rejected.exception, { type: 'GameRejected', stack_top: /failures\.test\.ts/ }, 'the stack top is the caller, not the helper');
});

// What a failure written by hand looks like, whatever its layout: a literal (on one line or spread
// over several), or a table code given as a value (a spread failure with its code replaced).
const CODE_VALUE = new RegExp(`\\bcode:\\s*['"\`](?:${CODES.join('|')})['"\`]`);
const HAND_MADE: Array<{ what: string; pattern: RegExp; sample: string }> = [
  { what: 'a failure literal', pattern: /\bok:\s*false\s*,\s*code\b/, sample: 'return {\n    ok: false,\n    code,\n    message };' },
  { what: 'an error code written as a value', pattern: CODE_VALUE, sample: "return { ...unknown, code: 'BAD_ARGS', message };" },
  { what: 'a BridgeError built by hand', pattern: /\bnew BridgeError\(/, sample: "throw new BridgeError('BUSY', 'full');" },
  { what: 'the generic builder', pattern: /\bfailureWith\(/, sample: "failureWith('BUSY', 'full')" },
];

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

t.test('no module outside src/errors/ builds a failure by hand', async (t) => {
  for (const { what, pattern, sample } of HAND_MADE) t.match(sample, pattern, `the check finds ${what}`);
  const files = [...modules(join(REPO_ROOT, 'src')), ...modules(join(REPO_ROOT, 'workers'))]
    .map((path) => relative(REPO_ROOT, path).split('\\').join('/'))
    .filter((path) => !path.startsWith('src/errors/'));
  t.ok(files.includes('src/http/respond.ts') && files.includes('workers/command-worker.ts'), 'the scan reads src/ and workers/');
  const found: string[] = [];
  for (const path of files) {
    const text = readFileSync(join(REPO_ROOT, path), 'utf8');
    for (const { what, pattern } of HAND_MADE) {
      const hit = new RegExp(pattern.source, 'g');
      for (let match = hit.exec(text); match; match = hit.exec(text)) {
        found.push(`${path}:${text.slice(0, match.index).split('\n').length}: ${what}; use the factory of src/errors/failures.ts`);
      }
    }
  }
  t.same(found, [], 'every failure comes from src/errors/');
});
