// gcb mcp over stdio, driven end to end by the SDK's own Client: `node bin/gcb.js mcp --config-dir DIR`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import type { Capabilities } from '../../src/client/client.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { closedPort, gcb, GCB, pinPort, ROOT } from '../gcb/helpers.ts';

// Real bridges and gcb subprocesses: room for a loaded machine.
t.setTimeout(120_000);

// One fixture-game bridge for the file (closed when it ends), found through its config dir.
const b = await startTestBridge(t);
pinPort(b.configDir, b.bridge.port);

t.test('one tool per enabled command + capabilities (the fixture game enables a few); calls and errors', async (t) => {
  const caps = (await (await b.fetch('/capabilities')).json()) as Capabilities;
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GCB, 'mcp', '--config-dir', b.configDir],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);
  t.match(client.getServerVersion(), { name: 'game-control-bridge' });

  const { tools } = await client.listTools();
  t.equal(tools.length, caps.commands.length + 1, 'enabled commands + 1');
  t.same(tools.map((tool) => tool.name).sort(), [...caps.commands.map((c) => `worldbox_${c.name}`), 'worldbox_capabilities'].sort());
  for (const command of caps.commands) {
    const tool = tools.find((x) => x.name === `worldbox_${command.name}`)!;
    t.same(tool.inputSchema, command.schema, `${command.name}: the bridge's JSON Schema`);
    t.equal(tool.description, command.description);
  }

  const world = (await client.callTool({ name: 'worldbox_get_world_state', arguments: {} })) as CallToolResult;
  t.notOk(world.isError);
  t.match(world.structuredContent, { width: 128, height: 128, paused: false });
  t.same(JSON.parse((world.content[0] as { text: string }).text), world.structuredContent, 'the same result as JSON text');
  const paused = (await client.callTool({ name: 'worldbox_pause' })) as CallToolResult;
  t.same(paused.structuredContent, { previous_paused: false, paused: true });
  const listed = (await client.callTool({ name: 'worldbox_capabilities' })) as CallToolResult;
  t.equal((listed.structuredContent as { commands: unknown[] }).commands.length, caps.commands.length);

  const bad = (await client.callTool({ name: 'worldbox_get_world_state', arguments: { x: 1 } })) as CallToolResult;
  t.equal(bad.isError, true);
  t.match(bad.structuredContent, { code: 'BAD_ARGS', message: /unknown property 'x'/ });
  t.match((bad.content[0] as { text: string }).text, /^BAD_ARGS: /);
  await t.rejects(client.callTool({ name: 'worldbox_no_such_tool' }), { code: -32602 }, 'an unknown tool is a protocol error');

  t.match(stderr, /tools over stdio/, 'its log goes to stderr; stdout is the protocol');
  t.notMatch(stderr, b.token);
});

t.test('a bridge that is not there, or a wrong token, stops it at start with its exit code', async (t) => {
  const port = await closedPort();
  const down = await gcb(['mcp', '--url', `http://127.0.0.1:${port}`], { env: { GCB_TOKEN: 'x'.repeat(48) } });
  t.equal(down.code, 4);
  t.match(down.stderr, /cannot reach the bridge/);
  t.equal(down.stdout, '', 'nothing on the protocol stream');
  const refused = await gcb(['mcp', '--url', b.bridge.url], { env: { GCB_TOKEN: 'wrong-token-0000' } });
  t.equal(refused.code, 20);
  t.match(refused.stderr, /UNAUTHORIZED/);
  const badPrefix = await gcb(['mcp', '--tool-prefix', 'no spaces', '--url', b.bridge.url], { env: { GCB_TOKEN: b.token } });
  t.equal(badPrefix.code, 2);
});
