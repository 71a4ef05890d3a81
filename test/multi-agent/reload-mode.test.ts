// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, startAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('the mode never switches while running', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god')] }, { game: TINY_GAME });
  rmSync(join(ma.b.configDir, 'agents.json'));
  await ma.b.bridge.reloadAgents();
  t.equal((await ma.as('dm', 'whoami')).status, 200, 'deleting agents.json keeps the agents');
  t.equal((await ma.b.fetch('/health')).status, 401, 'the legacy token still answers 401');
  t.ok(ma.b.logs.some((l) => /was removed; the agents stay/.test(String(l.msg))));
});
