// The client loads none of the bridge's runtime: its value imports are node built-ins, toml, the
// error-code table, the runtime-file reader and the shared sleep; command definitions come in as
// types only.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/paths.ts';

const ALLOWED = new Set(['node:fs', 'node:path', 'toml', '../errors/codes.ts', '../shared/runtime-file.ts', '../shared/sleep.ts']);

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

// Every `gcb` command starts by importing src/cli/gcb.ts. Reaching ajv (through config/load.ts and
// its schemas) once cost each start ~300 ms of CPU, two thirds of `gcb --help`; the CLI needs none.
t.test("gcb's static value imports reach neither ajv nor TypeBox", async (t) => {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: URL) => {
    if (seen.has(file.href)) return;
    seen.add(file.href);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gm)) {
      const target = match[1]!;
      if (target.startsWith('.')) visit(new URL(target, file));
      else packages.set(target, file.pathname.slice(REPO_ROOT.length));
    }
  };
  visit(pathToFileURL(join(REPO_ROOT, 'src/cli/gcb.ts')));
  t.ok(seen.size > 5, `followed ${seen.size} modules`);
  for (const name of ['ajv', 'ajv/dist/2020.js', '@sinclair/typebox']) t.notOk(packages.has(name), `${name} (imported by ${packages.get(name)})`);
});
