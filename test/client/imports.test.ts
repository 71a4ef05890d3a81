// The client loads none of the bridge's runtime: its value imports are node built-ins, toml, and
// the error-code table and the runtime-file reader; command definitions come in as types only.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/paths.ts';

const ALLOWED = new Set(['node:fs', 'node:path', 'toml', '../errors/codes.ts', '../shared/runtime-file.ts']);

t.test('src/client imports only types from the bridge', async (t) => {
  const dir = pathToFileURL(join(REPO_ROOT, 'src/client/'));
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(new URL(file, dir), 'utf8');
    for (const match of source.matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gm)) {
      const target = match[1]!;
      t.ok(target.startsWith('./') || ALLOWED.has(target), `${file}: ${match[0]}`);
    }
  }
});
