// decisions §10: agents.json changed while the bridge runs, over real HTTP.
import t from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, startAgents, writeAgents } from './helpers.ts';

// A bridge start and the pool's first calls are slow on a loaded machine.
t.setTimeout(120_000);

t.test('inboxes and the bus seq of staying agents are kept', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god'), agent('ann', 'observer'), agent('ben', 'observer')] }, { game: TINY_GAME });
  const sent = await ma.as('dm', 'send_message', { to: 'ann', content: 'before the reload' });
  t.equal(sent.status, 200);
  writeAgents(ma.b.configDir, { agents: [agent('dm', 'god'), agent('ann', 'narrator'), agent('cy', 'observer')] });
  await ma.b.bridge.reloadAgents();
  const inbox = (await ma.as('ann', 'recv_messages')).body.result;
  t.same(
    inbox.items.map((m: { content: string }) => m.content),
    ['before the reload'],
    "ann's inbox is kept",
  );
  const next = await ma.as('dm', 'send_message', { to: 'cy', content: 'hello' });
  t.equal(next.body.result.seq, sent.body.result.seq + 1, 'the bus seq goes on');
  t.equal((await ma.as('dm', 'send_message', { to: 'ben', content: 'x' })).status, 400, 'a removed agent is no recipient');
  t.same((await ma.as('cy', 'recv_messages')).body.result.items.length, 1, 'an added agent starts with an empty inbox');
});
