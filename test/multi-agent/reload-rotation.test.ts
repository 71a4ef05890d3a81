// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import t from 'tap';
import { sha256 } from '../../src/auth/credentials.ts';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, startAgents, token, writeAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('a token rotated with no gap: old and new both work, then only the new', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god'), agent('ann', 'observer')] }, { game: TINY_GAME });
  const fresh = 'ann-fresh-token-abcdefghijklmnopqrstuvwxyz';
  const asToken = (tok: string) => ma.b.cmd('whoami', undefined, { headers: { authorization: `Bearer ${tok}` } });
  writeAgents(ma.b.configDir, { agents: [agent('dm', 'god'), { ...agent('ann', 'observer'), token: [token('ann'), fresh] }] });
  await ma.b.bridge.reloadAgents();
  t.equal((await asToken(token('ann'))).body.result.agent_id, 'ann', 'the old token still works');
  t.equal((await asToken(fresh)).body.result.agent_id, 'ann', 'the new one works too');
  const newer = 'ann-newer-token-ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  writeAgents(ma.b.configDir, {
    agents: [agent('dm', 'god'), { id: 'ann', role: 'observer', token: fresh, token_sha256: [sha256(newer).toString('hex')] }],
  });
  await ma.b.bridge.reloadAgents();
  t.equal((await asToken(token('ann'))).status, 401, 'the removed token answers 401');
  t.equal((await asToken(fresh)).status, 200);
  t.equal((await asToken(newer)).body.result.agent_id, 'ann', 'a token given by its sha256 works beside a raw one');
});
