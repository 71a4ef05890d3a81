// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import t from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { openSse } from '../events/helpers.ts';
import { agent, eventsOf, startAgents, token, writeAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('add, remove and change a role: who gets in follows the file; removed streams close', async (t) => {
  const first = { agents: [agent('dm', 'god'), agent('bob', 'faction_player'), agent('owl', 'observer')] };
  const ma = await startAgents(t, first, { game: TINY_GAME });
  const dir = ma.b.configDir;
  t.equal((await ma.as('bob', 'whoami')).status, 200);
  t.equal((await ma.as('cat', 'whoami')).status, 401, 'not an agent yet');
  const bobStream = await openSse(ma.b.bridge.port, '/events', { token: token('bob') });
  t.equal(bobStream.status, 200);

  writeAgents(dir, { agents: [agent('dm', 'god'), agent('owl', 'narrator'), agent('cat', 'faction_player', { kingdom_claim: 'auto:0' })] });
  await ma.b.bridge.reloadAgents();

  t.equal((await ma.as('cat', 'whoami')).body.result.agent_id, 'cat', 'an added agent gets in');
  t.equal((await ma.as('bob', 'whoami')).status, 401, 'a removed agent answers 401');
  t.equal((await ma.as('owl', 'whoami')).body.result.role, 'narrator', 'a changed role applies');
  t.same(((await (await ma.b.fetch('/health', { headers: { authorization: `Bearer ${token('dm')}` } })).json()) as { agent_count: number }).agent_count, 3);
  t.same((await bobStream.ended).clean, true, "the removed agent's event stream closes");
  const [reloaded] = await eventsOf(ma, 'agents_reloaded');
  t.same({ added: reloaded?.added, removed: reloaded?.removed, changed: reloaded?.changed }, { added: ['cat'], removed: ['bob'], changed: ['owl'] });
  t.same(await eventsOf(ma, 'agents_reloaded', 'cat'), [], 'a faction player does not see it (read_all only)');
  const info = (await ma.as('dm', 'session_info')).body.result;
  t.same(
    info.agents.map((a: { id: string }) => a.id),
    ['dm', 'owl', 'cat'],
  );
});
