// docs/commands.md is generated from GET /capabilities (scripts/gen-docs.ts): this fails when the
// committed file is out of date. Fix: `npm run docs`.
import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

t.test('docs/commands.md matches the capabilities', async (t) => {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/gen-docs.ts', '--check'], { cwd: root, timeout: 50_000 });
    t.match(stdout, /up to date/);
  } catch (err) {
    const failure = err as { stderr?: string; code?: number };
    t.fail(`gen-docs --check failed (exit ${failure.code}): ${failure.stderr ?? String(err)}`);
  }
});
