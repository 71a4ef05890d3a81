// Over MCP a command the game cannot run is not "unknown tool": the MCP server learns the disabled
// commands from the bridge (/capabilities disabled_commands) and answers a call to one with the
// bridge's reason. A real bridge on the fixture game (which lacks getTile and worldSize), an MCP
// server built as gcb mcp builds it, and the SDK's client over an in-memory transport.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { BridgeClient } from '../../src/client/client.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { inMemorySession } from './helpers.ts';

t.test('a disabled command over MCP: no tool, and a call says it is disabled and why', async (t) => {
  const b = await startTestBridge(t);
  const client = new BridgeClient({ url: b.bridge.url, token: b.token });
  const capabilities = await client.capabilities();
  t.match(
    capabilities.disabled_commands?.find((d) => d.name === 'get_tile'),
    { missing: ['getTile', 'worldSize'] },
    'the bridge reports get_tile disabled',
  );

  const { client: mcp } = await inMemorySession(t, client);

  const { tools } = await mcp.listTools();
  t.notOk(
    tools.some((tool) => tool.name === 'worldbox_get_tile'),
    'no tool for a disabled command',
  );
  const call = (await mcp.callTool({ name: 'worldbox_get_tile', arguments: { x: 1, y: 1 } })) as CallToolResult;
  t.equal(call.isError, true, 'an error result, not a protocol error');
  t.match(call.structuredContent, {
    code: 'UNKNOWN_COMMAND',
    disabled: true,
    message: /'get_tile' is disabled: the game module does not export getTile, worldSize/,
  });
  t.match((call.content[0] as { text: string }).text, /^UNKNOWN_COMMAND: command 'get_tile' is disabled/);

  // The same answer the bridge gives over POST /cmd.
  const direct = await b.cmd('get_tile', { x: 1, y: 1 });
  t.equal((call.structuredContent as { message: string }).message, direct.body.error.message);

  // A name that is no command at all stays a protocol error.
  await t.rejects(mcp.callTool({ name: 'worldbox_no_such_tool' }), { code: -32602 });
  // An enabled command still runs.
  const world = (await mcp.callTool({ name: 'worldbox_get_world_state' })) as CallToolResult;
  t.notOk(world.isError);
});
