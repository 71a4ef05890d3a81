// decisions §11: a flood of messages from one agent evicts its own messages, never the referee's.
import t from 'tap';
import { agent, startAgents } from './helpers.ts';

t.setTimeout(120_000);

t.test("300 flood messages from one agent leave the referee's message in the inbox", async (t) => {
  const ma = await startAgents(t, { agents: [agent('ref', 'god'), agent('flood', 'faction_player'), agent('ann', 'faction_player')] });
  t.equal((await ma.as('ref', 'send_message', { to: 'ann', content: 'the rules', kind: 'referee' })).status, 200);
  const statuses = new Set<number>();
  for (let i = 0; i < 300; i += 10) {
    const sends = Array.from({ length: 10 }, (_, j) => ma.as('flood', 'send_message', { to: 'ann', content: `spam ${i + j}` }));
    for (const answer of await Promise.all(sends)) statuses.add(answer.status);
  }
  t.same([...statuses], [200], 'all 300 flood messages were accepted');
  const inbox = (await ma.as('ann', 'recv_messages', { max: 500 })).body.result;
  t.equal(inbox.count, 200, 'the inbox holds 200');
  t.match(inbox.items[0], { seq: 1, from: 'ref', kind: 'referee', content: 'the rules' }, "the referee's message survives");
  t.equal(inbox.items.filter((m: { from: string }) => m.from === 'flood').length, 199, 'the flood lost its own oldest');
  t.equal(inbox.items.at(-1).seq, 301, 'the newest is kept');
  const page = (await ma.as('ann', 'recv_messages', { since_seq: inbox.items[100].seq, max: 500 })).body.result;
  t.same(
    page.items.map((m: { seq: number }) => m.seq),
    inbox.items.slice(101).map((m: { seq: number }) => m.seq),
    'cursor reads follow seq order',
  );
});
