// docs/commands.md is generated from GET /capabilities (scripts/gen-docs.ts): this fails when the
// committed file is out of date. Fix: `npm run docs`.
import t from 'tap';
import { execFile } from 'node:child_process';
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
