// decisions §10: against a multi-agent bridge one credential holds at most half of gcb mcp --http's
// sessions, counted the moment the check passes, so parallel initialize requests cannot overshoot.
import t from 'tap';
import { startMcpHttpServer } from '../../src/mcp/http.ts';
import { startTestBridge, TINY_GAME } from '../helpers/bridge.ts';
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
  const statuses = await Promise.all(
    Array.from({ length: count }, async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INITIALIZE,
      });
      await res.text();
      return res.status;
    }),
  );
  return statuses.sort();
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

t.test('legacy mode: the one credential may use every session', async (t) => {
  const b = await startTestBridge(t);
  const mcp = await startMcpHttpServer({ bridgeUrl: b.bridge.url, port: 0, log: () => {}, maxSessions: 8 });
  t.teardown(() => mcp.close());
  t.same(tally(await openMany(mcp.url, b.token, 20)), { opened: 8, busy: 12 });
});
