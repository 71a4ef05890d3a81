// The MCP server's instructions (decisions §7): a model is told to follow the world with
// recv_events rather than list it again, and worldbox_recv_events works as a tool (a long-poll
// answered by the next event).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { BridgeClient, type Capabilities } from '../../src/client/client.ts';
import { instructionsFor } from '../../src/mcp/server.ts';
import { startEventBridge, TOKEN } from '../events/helpers.ts';
import { inMemorySession } from './helpers.ts';

t.setTimeout(120_000);

t.test('the instructions point at recv_events, with its cursor and wait', async (t) => {
  const b = await startEventBridge(t);
  const bridge = new BridgeClient({ url: b.bridge.url, token: TOKEN });
  const { client } = await inMemorySession(t, bridge);

  const instructions = client.getInstructions() ?? '';
  t.match(instructions, /call worldbox_recv_events instead of listing the world again/);
  for (const word of ['since_seq', 'next_cursor', 'wait_ms', 'kinds', 'gap']) t.match(instructions, word, `mentions ${word}`);

  const { tools } = await client.listTools();
  const tool = tools.find((x) => x.name === 'worldbox_recv_events');
  t.ok(tool, 'worldbox_recv_events is a tool');
  t.equal(tool?.annotations?.readOnlyHint, true, 'read-only: a client may run it without asking');

  // As a model would: a cursor first, then a wait answered by the next event.
  const first = (await client.callTool({ name: 'worldbox_recv_events', arguments: { kinds: ['ping'] } })) as CallToolResult;
  const cursor = (first.structuredContent as { next_cursor: number }).next_cursor;
  const waiting = client.callTool({ name: 'worldbox_recv_events', arguments: { since_seq: cursor, kinds: ['ping'], wait_ms: 20_000 } });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  const answered = (await waiting) as CallToolResult;
  t.notOk(answered.isError);
  t.match(answered.structuredContent, { count: 1, items: [{ kind: 'ping' }] });
});

t.test('the prefix is followed; without recv_events the sentence is left out', async (t) => {
  const caps = (commands: string[]): Capabilities =>
    ({
      mod_version: '0.4.0',
      game_version: 'x',
      engine_version: 'x',
      game_assembly_sha256: 'x',
      commands: commands.map((name) => ({ name, category: 'read', description: '', schema: {}, requires_main_thread: false })),
    }) as unknown as Capabilities;
  t.match(instructionsFor(caps(['health', 'recv_events']), 'wb_'), /call wb_recv_events instead/);
  t.notMatch(instructionsFor(caps(['health']), 'wb_'), /recv_events/, 'an older bridge: no tool to point at');
});
