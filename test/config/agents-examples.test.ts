import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseAgents } from '../../src/config/agents.ts';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/paths.ts';

const dir = pathToFileURL(join(REPO_ROOT, 'examples/agents/'));

t.test('every example agents.json is valid and its scenario matches its name', async (t) => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  t.same(files.sort(), ['coop.json', 'hierarchical.json', 'pvp.json', 'sandbox.json']);
  for (const file of files) {
    const config = parseAgents(file, readFileSync(new URL(file, dir), 'utf8'));
    t.equal(config.scenario, file.replace('.json', ''), file);
  }
});
