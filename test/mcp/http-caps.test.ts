// decisions §10 and §13: against a multi-agent bridge one agent (all its tokens) holds at most half
// of gcb mcp --http's sessions, and a quarter is kept for agents with read_all; counted the moment
// the check passes, so parallel initialize requests cannot overshoot.
import t from 'tap';
import { startMcpHttpServer } from '../../src/mcp/http.ts';
import { startTestBridge, tempDir, TINY_GAME, writeConfig } from '../helpers/bridge.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';

t.setTimeout(120_000);

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** `count` initialize requests at once with one token; the statuses, sorted. */
async function openMany(url: string, tok: string, count: number): Promise<number[]> {
  return (await openManyAnswers(url, tok, count)).map((answer) => answer.status).sort();
}

async function openManyAnswers(url: string, tok: string, count: number): Promise<Array<{ status: number; body: string }>> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INITIALIZE,
      });
      return { status: res.status, body: await res.text() };
    }),
  );
}

const tally = (statuses: number[]) => ({ opened: statuses.filter((s) => s === 200).length, busy: statuses.filter((s) => s === 503).length });

t.test('multi-agent: half the sessions per credential under parallel opens; others still get in', async (t) => {
  const ma = await startAgents(t, { agents: [agent('a', 'god'), agent('b', 'observer'), agent('c', 'observer')] }, { game: TINY_GAME });
  const mcp = await startMcpHttpServer({ bridgeUrl: ma.b.bridge.url, port: 0, log: () => {}, maxSessions: 8 });
  t.teardown(() => mcp.close());
  t.same(tally(await openMany(mcp.url, token('a'), 20)), { opened: 4, busy: 16 }, 'one credential: 4 of 8, however many open at once');
  t.same(tally(await openMany(mcp.url, token('b'), 20)), { opened: 4, busy: 16 }, 'another credential still gets its half');
  t.same(tally(await openMany(mcp.url, token('c'), 5)), { opened: 0, busy: 5 }, 'the global cap holds');
  t.equal(mcp.sessionCount(), 8);
});

t.test('multi-agent: two players at their half cannot take the quarter kept for read_all; an agent’s tokens share its half', async (t) => {
  const ma = await startAgents(
    t,
    {
      agents: [
        agent('p1', 'faction_player', { token: [token('p1'), token('p1-second')] }),
        agent('p2', 'faction_player'),
        agent('g', 'god'),
        agent('o', 'observer'),
      ],
    },
    { game: TINY_GAME },
  );
  // 8 sessions: 4 per agent, 2 kept for read_all, so 6 open to players.
  const mcp = await startMcpHttpServer({ bridgeUrl: ma.b.bridge.url, port: 0, log: () => {}, maxSessions: 8 });
  t.teardown(() => mcp.close());
  t.same(tally(await openMany(mcp.url, token('p1'), 10)), { opened: 4, busy: 6 }, 'p1: its half');
  const second = await openManyAnswers(mcp.url, token('p1-second'), 3);
  t.same(tally(second.map((a) => a.status)), { opened: 0, busy: 3 }, "p1's other token: the same agent, the same half");
  t.match(JSON.parse(second[0]!.body).error.message, /agent 'p1' already holds 4 MCP sessions, its share.*close one \(DELETE \/mcp\)/);
  const p2 = await openManyAnswers(mcp.url, token('p2'), 10);
  t.same(tally(p2.map((a) => a.status)), { opened: 2, busy: 8 }, 'p2: only what is left of the 6 open to players');
  const refused = p2.find((a) => a.status === 503)!;
  t.match(JSON.parse(refused.body), {
    jsonrpc: '2.0',
    error: { message: /the 6 MCP sessions open to agents without read_all are all taken; the other 2 .* kept for agents with read_all/ },
  });
  t.same(tally(await openMany(mcp.url, token('g'), 1)), { opened: 1, busy: 0 }, 'the god still gets in');
  t.same(tally(await openMany(mcp.url, token('o'), 3)), { opened: 1, busy: 2 }, 'the observer: the last kept one');
  t.equal(mcp.sessionCount(), 8);
});

t.test('a disabled bridge (kill switch off): sessions still open', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { enabled: false });
  const b = await startTestBridge(t, { configDir: dir });
  t.equal((await b.cmd('whoami')).status, 503, 'POST /cmd answers DISABLED');
  const mcp = await startMcpHttpServer({ bridgeUrl: b.bridge.url, port: 0, log: () => {}, maxSessions: 4 });
  t.teardown(() => mcp.close());
  t.same(tally(await openMany(mcp.url, b.token, 5)), { opened: 4, busy: 1 }, 'legacy mode: the one credential may still use every session');
});

t.test('legacy mode: the one credential may use every session', async (t) => {
  const b = await startTestBridge(t);
  const mcp = await startMcpHttpServer({ bridgeUrl: b.bridge.url, port: 0, log: () => {}, maxSessions: 8 });
  t.teardown(() => mcp.close());
  t.same(tally(await openMany(mcp.url, b.token, 20)), { opened: 8, busy: 12 });
});
