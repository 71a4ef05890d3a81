// Research mode is v0.5 (decisions §12): mod_version, the package's version, is 0.5.x, and every
// file that states that version states the same one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MOD_VERSION } from '../../src/version.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

t.test('mod_version is 0.5.x, and the lockfile and the Python package say the same', async (t) => {
  t.match(MOD_VERSION, /^0\.5\.\d+$/);
  const lock = JSON.parse(read('package-lock.json')) as { version: string; packages: Record<string, { version?: string }> };
  t.same([lock.version, lock.packages['']?.version], [MOD_VERSION, MOD_VERSION], "package-lock.json's own version fields");
  t.equal(/^version = "([^"]+)"$/m.exec(read('python/pyproject.toml'))?.[1], MOD_VERSION, 'python/pyproject.toml');
  t.equal(/^__version__ = "([^"]+)"$/m.exec(read('python/gcb_env/__init__.py'))?.[1], MOD_VERSION, 'gcb_env.__version__');
});
