// decisions §14, the Streamable HTTP transport: every SSE stream of a 2025-11-25 client opens with
// a priming event (an id and empty data) and a `retry`; a client that reconnects with
// Last-Event-ID gets what was sent while it was away. An older client gets no priming event (it
// could not read one). Raw HTTP, to see the bytes.
import t from 'tap';
import { SseParser, type SseItem } from '../../src/client/sse.ts';
import { LIMITS } from '../../src/limits.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { mcpServer } from './helpers.ts';

t.setTimeout(120_000);

const b = await startTestBridge(t);
const mcp = await mcpServer(t, b.bridge.url);
const auth = { authorization: `Bearer ${b.token}` };

/** An SSE answer read item by item. */
function reader(response: Response): { next(ms?: number): Promise<SseItem | undefined>; close(): Promise<void> } {
  const body = response.body!.getReader();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const items: SseItem[] = [];
  return {
    async next(ms = 5_000) {
      const deadline = Date.now() + ms;
      while (items.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        const chunk = await Promise.race([body.read(), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), left))]);
        if (chunk === 'late' || chunk.done) return undefined;
        items.push(...parser.feed(decoder.decode(chunk.value, { stream: true })));
      }
      return items.shift();
    },
    close: () => body.cancel(),
  };
}

async function open(revision: string): Promise<{ session: string; headers: Record<string, string>; first: SseItem[] }> {
  const response = await fetch(mcp.url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  t.equal(response.headers.get('content-type'), 'text/event-stream');
  const session = response.headers.get('mcp-session-id')!;
  const stream = reader(response);
  const first: SseItem[] = [];
  for (let item = await stream.next(); item !== undefined; item = await stream.next(1_000)) first.push(item);
  const headers = { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': revision };
  await fetch(mcp.url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return { session, headers, first };
}

const post = (headers: Record<string, string>, body: unknown) =>
  fetch(mcp.url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
const retry = (items: SseItem[]) => items.find((item) => item.type === 'retry');
const messages = (items: SseItem[]) => items.filter((item): item is Extract<SseItem, { type: 'message' }> => item.type === 'message');

t.test('2025-11-25: each stream opens with a priming event and a retry; Last-Event-ID gets what was missed', async (t) => {
  const { headers, first } = await open('2025-11-25');
  t.same(retry(first), { type: 'retry', ms: LIMITS.mcpSseRetryMs }, 'the POST stream of initialize: retry');
  const [priming, answer] = messages(first);
  t.match(priming, { id: /.+/, data: '' }, 'then the priming event: an id, empty data');
  t.match(JSON.parse(answer!.data), { id: 1, result: { protocolVersion: '2025-11-25' } });

  // The GET stream, which the SDK does not prime itself.
  const get = await fetch(mcp.url, { headers: { ...headers, accept: 'text/event-stream' } });
  t.equal(get.status, 200);
  const stream = reader(get);
  const opening = [(await stream.next())!, (await stream.next())!];
  t.same(retry(opening), { type: 'retry', ms: LIMITS.mcpSseRetryMs }, 'the GET stream: retry');
  const [primingGet] = messages(opening);
  t.match(primingGet, { id: /^_GET_stream_\d+$/, data: '' }, 'and a priming event first');
  await stream.close();

  // Away: world://events is subscribed, and the bridge answers a command (an event the legacy token
  // sees): its notifications/resources/updated, meant for the GET stream, is kept for it.
  const subscribed = await post(headers, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'world://events' } });
  t.equal(subscribed.status, 200);
  t.match(await subscribed.text(), /"result":\{\},"jsonrpc":"2.0","id":2/);
  t.equal((await b.cmd('pause')).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1_500));

  const back = await fetch(mcp.url, { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primingGet!.id! } });
  t.equal(back.status, 200, 'a reconnection with Last-Event-ID');
  const replay = reader(back);
  const missed = (await replay.next())!;
  t.match(missed, { type: 'message', id: /^_GET_stream_\d+$/ }, 'what it missed, with its id');
  t.same(JSON.parse((missed as { data: string }).data), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'world://events' } });
  await replay.close();
});

t.test('an older revision gets no priming event', async (t) => {
  const { headers, first } = await open('2025-06-18');
  t.equal(retry(first), undefined);
  t.notOk(
    messages(first).some((item) => item.data === ''),
    'no event with empty data on the POST stream',
  );
  const get = await fetch(mcp.url, { headers: { ...headers, accept: 'text/event-stream' } });
  t.equal(get.status, 200);
  const stream = reader(get);
  t.equal(await stream.next(1_000), undefined, 'nothing on the GET stream until there is something to say');
  await stream.close();
});
