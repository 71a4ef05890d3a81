// decisions §13 and §14: what a session holds is bounded and counted against its credential.
// Subscriptions: 64 per credential (all its sessions together), and of the server's 256 a quarter
// kept for read_all, so faction players at their limits leave the god room to subscribe (over
// HTTP, where one server serves them all; over stdio the credential's own limit holds the same).
// Stored stream events: bounded in bytes per session and per credential, the oldest going first,
// never another credential's.
import t from 'tap';
import { LIMITS } from '../../src/limits.ts';
import { StreamStore } from '../../src/mcp/stream-store.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';
import { connectHttp, connectStdio, mcpServer } from './helpers.ts';

t.setTimeout(240_000);

const PER_CREDENTIAL = LIMITS.mcpSubscriptionsPerCredential;
const tile = (agentIndex: number, n: number) => `world://tile/${agentIndex}/${n}`;

const players = ['p1', 'p2', 'p3', 'p4'];
// One bridge for the file; each gcb mcp process (the HTTP server, a stdio one) keeps its own count.
const ma = await startAgents(
  t,
  { scenario: 'pvp', agents: [agent('dm', 'god'), ...players.map((id, i) => agent(id, 'faction_player', { kingdom_claim: `auto:${i}` }))] },
  { config: { clock: 'lockstep' } },
);

t.test('players at their 64 subscriptions each leave the god room; the quarter kept for read_all holds', async (t) => {
  const mcp = await mcpServer(t, ma.b.bridge.url);
  t.equal(LIMITS.mcpSubscriptionsMax, 256, 'the server holds 256, 64 of them kept for read_all');
  // p1 holds its share in two sessions: the limit is the credential's, not the session's.
  const p1a = await connectHttp(t, mcp.url, token('p1'));
  const p1b = await connectHttp(t, mcp.url, token('p1'));
  for (let n = 0; n < PER_CREDENTIAL; n++) await (n % 2 === 0 ? p1a : p1b).client.subscribeResource({ uri: tile(1, n) });
  await t.rejects(
    p1b.client.subscribeResource({ uri: tile(1, 100) }),
    { code: -32000, message: /already holds 64 resource subscriptions, its limit/ },
    "p1's 65th",
  );
  await p1a.client.subscribeResource({ uri: tile(1, 0) });
  t.pass('subscribing again to a URI it holds takes nothing more');

  for (const [i, id] of ['p2', 'p3'].entries()) {
    const { client } = await connectHttp(t, mcp.url, token(id));
    for (let n = 0; n < PER_CREDENTIAL; n++) await client.subscribeResource({ uri: tile(i + 2, n) });
    await t.rejects(client.subscribeResource({ uri: tile(i + 2, 100) }), { code: -32000 }, `${id}'s 65th`);
  }
  const p4 = await connectHttp(t, mcp.url, token('p4'));
  await t.rejects(
    p4.client.subscribeResource({ uri: tile(4, 0) }),
    { code: -32000, message: /the 192 resource subscriptions open to agents without read_all are all taken; the other 64 .* kept for agents with read_all/ },
    'three players at their limits: the fourth gets none, the kept quarter is the god’s',
  );
  const god = await connectHttp(t, mcp.url, token('dm'));
  await god.client.subscribeResource({ uri: 'world://events' });
  await god.client.subscribeResource({ uri: tile(0, 0) });
  t.pass('the god subscribes');

  // Given back: on unsubscribe, and when a session closes.
  await p1a.client.unsubscribeResource({ uri: tile(1, 0) });
  await p1b.client.subscribeResource({ uri: tile(1, 100) });
  await p1b.transport.terminateSession();
  for (let n = 0; n < PER_CREDENTIAL / 2; n++) await p1a.client.subscribeResource({ uri: tile(1, 200 + n) });
  t.pass("a closed session's subscriptions are its credential's again");
});

t.test('over stdio: the credential’s limit of 64', async (t) => {
  const ma = await startAgents(
    t,
    { scenario: 'pvp', agents: [agent('dm', 'god'), agent('p1', 'faction_player', { kingdom_claim: 'auto:0' })] },
    { config: { clock: 'lockstep' } },
  );
  const { client } = await connectStdio(t, ma.b.bridge.url, token('p1'));
  for (let n = 0; n < PER_CREDENTIAL; n++) await client.subscribeResource({ uri: tile(1, n) });
  await t.rejects(client.subscribeResource({ uri: tile(1, 100) }), { code: -32000, message: /its limit \(64\)/ });
  await client.unsubscribeResource({ uri: tile(1, 5) });
  await client.subscribeResource({ uri: tile(1, 100) });
});

t.test('stored stream events: bounded per session and per credential, the oldest first, each credential its own', async (t) => {
  const message = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info' as const, data: 'x'.repeat(800), n } });
  const first = new StreamStore(10_000, 4_000);
  const other = new StreamStore(10_000, 4_000);
  const a = first.forSession();
  const b = first.forSession();
  const c = other.forSession();
  const ids: string[] = [];
  for (let n = 0; n < 20; n++) ids.push(await a.storeEvent('a-stream', message(n)));
  t.ok(a.bytes <= 4_000 && a.bytes > 2_000, `a session keeps at most its 4000 bytes (${a.bytes})`);
  const replayed: number[] = [];
  const stream = await a.replayEventsAfter(ids[0]!, { send: async (_id, m) => void replayed.push((m as unknown as { params: { n: number } }).params.n) });
  t.equal(stream, 'a-stream');
  t.ok(replayed.length >= 2, `${replayed.length} kept`);
  t.same(
    replayed,
    [...Array(replayed.length).keys()].map((k) => 20 - replayed.length + k),
    'the newest events are the ones kept, in order',
  );
  for (let n = 0; n < 10; n++) await b.storeEvent('b-stream', message(n));
  for (let n = 0; n < 10; n++) await c.storeEvent('c-stream', message(n));
  t.ok(first.bytes <= 10_000, `the credential keeps at most its 10000 bytes (${first.bytes})`);
  t.equal(c.bytes, other.bytes, 'another credential keeps its own, whatever this one stores');
  t.ok(c.bytes > 2_000);
  await t.rejects(b.replayEventsAfter(ids[0]!, { send: async () => {} }), /unknown event id/, "a session cannot read another session's stream");
  t.equal(await b.getStreamIdForEventId('nonsense'), undefined);
  a.drop();
  t.equal(a.bytes, 0, 'a closed session gives its bytes back');
});
