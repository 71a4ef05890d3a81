import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseAgents } from '../../src/config/agents.ts';
import { newAgentToken } from '../../src/auth/token-strength.ts';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/paths.ts';

const dir = pathToFileURL(join(REPO_ROOT, 'examples/agents/'));
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

t.test('every example agents.json refuses to start until its placeholder tokens are replaced', async (t) => {
  t.same(files.sort(), ['coop.json', 'hierarchical.json', 'pvp.json', 'sandbox.json']);
  for (const file of files) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    // decisions §11: a copied example must not start with a guessable token, and says how to make one.
    t.throws(
      () => parseAgents(file, text),
      { message: /\("[\w-]+"\) token (is shorter than 32 characters|has fewer than 16 distinct characters);.*`gcb token --new` prints one/ },
      file,
    );
  }
});

t.test('with real tokens filled in, every example is valid and its scenario matches its name', async (t) => {
  for (const file of files) {
    const text = readFileSync(new URL(file, dir), 'utf8').replace(/"replace-me-[\w-]+"/g, () => JSON.stringify(newAgentToken().token));
    const config = parseAgents(file, text);
    t.equal(config.scenario, file.replace('.json', ''), file);
  }
});
