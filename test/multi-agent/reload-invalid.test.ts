// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import t from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, eventsOf, startAgents, token, writeAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('an invalid file changes nothing and warns once; the next change is tried again', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god'), agent('ann', 'observer')] }, { game: TINY_GAME });
  const dir = ma.b.configDir;
  writeAgents(dir, '{"agents": [');
  await ma.b.bridge.reloadAgents();
  await ma.b.bridge.reloadAgents();
  t.equal((await ma.as('ann', 'whoami')).status, 200, 'the last good file stays');
  const warnings = ma.b.logs.filter((l) => /agents\.json not applied/.test(String(l.msg)));
  t.equal(warnings.length, 1, 'one warning per change of the file');
  t.match(String(warnings[0]?.msg), /agents\.json: not valid JSON/, 'it names the file and the reason');
  t.match((await eventsOf(ma, 'agents_reload_failed'))[0], { reason: /not valid JSON/ });

  writeAgents(dir, { agents: [agent('dm', 'god'), { ...agent('ann', 'observer'), role: 'emperor' }] });
  await ma.b.bridge.reloadAgents();
  writeAgents(dir, { agents: [agent('dm', 'god'), agent('ann', 'observer', { max_slots: 99 })] });
  await ma.b.bridge.reloadAgents();
  const reasons = (await eventsOf(ma, 'agents_reload_failed')).map((e) => String(e.reason));
  t.match(reasons, [/not valid JSON/, /role must be one of/, /max_slots = 99 is not allowed/]);
  t.notMatch(ma.b.logText(), token('ann'), 'no token in any warning');

  writeAgents(dir, { agents: [agent('dm', 'god'), agent('ann', 'narrator')] });
  await ma.b.bridge.reloadAgents();
  t.equal((await ma.as('ann', 'whoami')).body.result.role, 'narrator', 'a valid file after an invalid one applies');
});
