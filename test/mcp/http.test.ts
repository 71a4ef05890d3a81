// gcb mcp over streamable HTTP on loopback, driven by the SDK's own Client: the full sandbox (39
// tools, an error result with did_you_mean, an image), one session per agent token, and the
// Origin/Host/token checks in front of it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import type { Capabilities } from '../../src/client/client.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { startMcpHttpServer, type McpHttpHandle } from '../../src/mcp/http.ts';
import { rawRequest, startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { gcbServer, pinPort } from '../gcb/helpers.ts';

declare namespace Tap {
  type Test = import('tap').Test;
}

async function mcpServer(t: Tap.Test, bridgeUrl: string, options: { prefix?: string } = {}): Promise<McpHttpHandle> {
  const server = await startMcpHttpServer({ bridgeUrl, port: 0, log: () => {}, ...options });
  t.teardown(() => server.close());
  return server;
}

async function connect(t: Tap.Test, url: string, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);
  return { client, transport };
}

const text = (result: CallToolResult, index = 0) => (result.content[index] as { text: string }).text;

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// Real bridges and gcb subprocesses: room for a loaded machine.
t.setTimeout(120_000);

t.test('the sandbox: every command a tool (39 with the full catalogue), calls, did_you_mean, an image', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const caps = (await (await b.fetch('/capabilities')).json()) as Capabilities;
  const mcp = await mcpServer(t, b.bridge.url);
  const { client } = await connect(t, mcp.url, b.token);

  const { tools } = await client.listTools();
  t.equal(caps.commands.length, COMMANDS.length, 'the sandbox enables every registered command');
  t.equal(tools.length, caps.commands.length + 1);
  t.equal(
    tools.length,
    39,
    'spec: 29 tools, plus worldbox_recv_events and worldbox_batch of v0.4 (decisions §7, §8), the 7 of research mode (§12) and worldbox_observe',
  );
  t.ok(tools.every((tool) => tool.name.startsWith('worldbox_')));
  // decisions §12: every research command is a tool; world_hash only reads.
  const research = ['step', 'world_hash', 'savepoint', 'rewind', 'savepoint_drop', 'record_start', 'record_stop'].map((name) =>
    tools.find((tool) => tool.name === `worldbox_${name}`),
  );
  t.ok(
    research.every((tool) => tool !== undefined),
    'worldbox_step, _world_hash, _savepoint, _rewind, _savepoint_drop, _record_start and _record_stop',
  );
  t.same(
    research.map((tool) => tool?.annotations?.readOnlyHint),
    [false, true, false, false, false, false, false],
  );
  const hashed = (await client.callTool({ name: 'worldbox_world_hash' })) as CallToolResult;
  t.match(hashed.structuredContent, { tick: Number, hash: /^[0-9a-f]{16}$/ });
  const paused = (await client.callTool({ name: 'worldbox_step', arguments: { ticks: 1 } })) as CallToolResult;
  t.match(paused.structuredContent, { code: 'GAME_REJECTED', message: /pause first/ }, 'a model learns why a step was refused');

  const world = (await client.callTool({ name: 'worldbox_get_world_state' })) as CallToolResult;
  t.match(world.structuredContent, { width: 256, height: 256 });
  const actors = (await client.callTool({ name: 'worldbox_list_actors' })) as CallToolResult;
  t.ok((actors.structuredContent as { items: Array<{ id: string }> }).items.some((item) => item.id === 'human'));

  const typo = (await client.callTool({ name: 'worldbox_spawn', arguments: { entity_id: 'humn', x: 10, y: 10 } })) as CallToolResult;
  t.equal(typo.isError, true);
  t.match(typo.structuredContent, { code: 'UNKNOWN_ASSET', message: /humn/, did_you_mean: ['human'] });
  t.match(text(typo), /^UNKNOWN_ASSET: .*humn.*\ndid_you_mean: \["human"/s, 'the text a model reads has the code and the suggestions');
  const range = (await client.callTool({ name: 'worldbox_spawn', arguments: { entity_id: 'human', x: 10, y: 10, count: 1000 } })) as CallToolResult;
  t.match(range.structuredContent, { code: 'BAD_ARGS' });
  const off = (await client.callTool({ name: 'worldbox_get_tile', arguments: { x: 9999, y: 0 } })) as CallToolResult;
  t.match(off.structuredContent, { code: 'OUT_OF_BOUNDS' });

  const shot = (await client.callTool({ name: 'worldbox_screenshot', arguments: { max_dimension: 64, format: 'png' } })) as CallToolResult;
  t.notOk(shot.isError, shot.isError ? text(shot) : 'screenshot ok');
  const image = shot.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
  t.equal(image?.mimeType, 'image/png');
  t.same(Buffer.from(image?.data ?? '', 'base64').subarray(0, 4), Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'a PNG');
  t.match(shot.structuredContent, { format: 'png', width: Number, height: Number });
});

t.test('one server, several agents: each session forwards its own token', async (t) => {
  const dir = tempDir();
  const agents = { dm: 'dm-token-0123456789-ABCDEFGHJKLMNP', watcher: 'watcher-token-0123456789-ABCDEFGHJK' };
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      scenario: 'sandbox',
      agents: [
        { id: 'dm', token: agents.dm, role: 'god' },
        { id: 'watcher', token: agents.watcher, role: 'observer' },
      ],
    }),
  );
  const b = await startTestBridge(t, { configDir: dir });
  const mcp = await mcpServer(t, b.bridge.url, { prefix: 'wb_' });
  const dm = await connect(t, mcp.url, agents.dm);
  const watcher = await connect(t, mcp.url, agents.watcher);
  t.equal(mcp.sessionCount(), 2);

  const who = async (client: Client) => ((await client.callTool({ name: 'wb_whoami' })) as CallToolResult).structuredContent;
  t.match(await who(dm.client), { agent_id: 'dm', role: 'god' });
  t.match(await who(watcher.client), { agent_id: 'watcher', role: 'observer' });
  const denied = (await watcher.client.callTool({ name: 'wb_pause' })) as CallToolResult;
  t.match(denied, { isError: true, structuredContent: { code: 'PERMISSION_DENIED' } });
  const allowed = (await dm.client.callTool({ name: 'wb_pause' })) as CallToolResult;
  t.notOk(allowed.isError);

  // Only the token that opened a session may use it.
  const hijack = await fetch(mcp.url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${agents.watcher}`, 'mcp-session-id': dm.transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'wb_resume' } }),
  });
  t.equal(hijack.status, 401);
  const legacy = await fetch(mcp.url, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${b.token}` }, body: INITIALIZE });
  t.equal(legacy.status, 401, 'a token the bridge refuses opens no session (multi-agent mode refuses the legacy token)');

  await dm.transport.terminateSession();
  await until(() => mcp.sessionCount() === 1, 5000, 'the session to close');
});

t.test('in front of everything: Host, Origin, token, path', async (t) => {
  const b = await startTestBridge(t);
  const mcp = await mcpServer(t, b.bridge.url);
  const post = (headers: Record<string, string>, body = INITIALIZE, url = mcp.url) =>
    fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body });
  const auth = { authorization: `Bearer ${b.token}` };

  const evil = await post({ ...auth, origin: 'http://evil.example' });
  t.equal(evil.status, 403, 'a foreign Origin (a web page) is refused');
  t.match(await evil.json(), { jsonrpc: '2.0', error: { message: /loopback origins/ } });
  t.equal((await post({ ...auth, origin: 'http://localhost:6274' })).status, 200, 'a loopback Origin (the MCP Inspector) is let in');
  const host = await rawRequest(mcp.port, {
    method: 'POST',
    path: '/mcp',
    headers: { host: `evil.example:${mcp.port}`, ...MCP_HEADERS, ...auth, 'content-length': Buffer.byteLength(INITIALIZE) },
    body: INITIALIZE,
  });
  t.equal(host.status, 403, 'a foreign Host (DNS rebinding) is refused');

  const none = await post({});
  t.equal(none.status, 401);
  t.equal(none.headers.get('www-authenticate'), 'Bearer');
  t.equal((await post({ authorization: 'Bearer wrong-token' })).status, 401, 'a token the bridge refuses');
  t.equal((await post(auth, INITIALIZE, mcp.url.replace('/mcp', '/other'))).status, 404);
  t.equal((await post(auth, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).status, 400, 'no session and not initialize');
  t.equal((await post({ ...auth, 'mcp-session-id': 'no-such-session' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).status, 404);
  t.equal((await post(auth, '{not json')).status, 400);
  t.equal(mcp.sessionCount(), 1, 'only the loopback-Origin initialize opened a session');
});

t.test('gcb mcp --http as a subprocess: startup line, a session, SIGTERM exits 0', async (t) => {
  const b = await startTestBridge(t);
  pinPort(b.configDir, b.bridge.port);
  const server = await gcbServer(['mcp', '--http', '--port', '0', '--config-dir', b.configDir]);
  t.teardown(() => void (server.child.exitCode === null && server.child.kill('SIGKILL')));
  const caps = (await (await b.fetch('/capabilities')).json()) as Capabilities;
  t.match(server.line, new RegExp(`^gcb mcp listening on http://127\\.0\\.0\\.1:\\d+/mcp \\(bridge ${b.bridge.url}, ${caps.commands.length + 1} tools\\)$`));
  const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.line)![1]!;
  const { client } = await connect(t, url, b.token);
  t.equal((await client.listTools()).tools.length, caps.commands.length + 1);
  await client.close();
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
  t.notMatch(server.stdout() + server.stderr(), b.token, 'the token is never printed');
});
