// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import t from 'tap';
import { TINY_GAME, until } from '../helpers/bridge.ts';
import { agent, startAgents, writeAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('the file is polled: a change applies without a signal', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god')] }, { game: TINY_GAME, timings: { killSwitchReloadMs: 100 } });
  writeAgents(ma.b.configDir, { agents: [agent('dm', 'god'), agent('new', 'observer')] });
  await until(() => ma.b.logs.some((l) => /agents\.json applied/.test(String(l.msg))), 10_000, 'the poll applies the file');
  t.equal((await ma.as('new', 'whoami')).status, 200);
});
