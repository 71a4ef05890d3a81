// MCP clients for tests: the SDK's own Client over the transports gcb mcp serves, and an MCP
// session built as gcb mcp builds one, over an in-memory transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Test } from 'tap';
import type { BridgeClient } from '../../src/client/client.ts';
import { Credential } from '../../src/mcp/credential.ts';
import { startMcpHttpServer, type McpHttpHandle } from '../../src/mcp/http.ts';
import { createMcpSession } from '../../src/mcp/server.ts';
import { DEFAULT_TOOL_PREFIX } from '../../src/mcp/tools.ts';
import { GCB, ROOT } from '../gcb/helpers.ts';

/** An MCP session over `bridge`'s token, and the SDK's client connected to it in memory. */
export async function inMemorySession(t: Test, bridge: BridgeClient, prefix = DEFAULT_TOOL_PREFIX): Promise<{ client: Client; credential: Credential }> {
  const credential = await Credential.open(bridge);
  const { server, dispose } = createMcpSession({ credential, prefix, tokenDigest: 'test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'in-memory-test', version: '1.0.0' });
  t.teardown(async () => {
    await client.close();
    dispose();
    credential.close();
  });
  await client.connect(clientSide);
  return { client, credential };
}

export async function mcpServer(t: Test, bridgeUrl: string, options: { prefix?: string } = {}): Promise<McpHttpHandle> {
  const server = await startMcpHttpServer({ bridgeUrl, port: 0, log: () => {}, ...options });
  t.teardown(() => server.close());
  return server;
}

/** The SDK's client over Streamable HTTP, sending `token`. */
export async function connectHttp(
  t: Test,
  url: string,
  token: string,
  name = 'http-test',
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name, version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);
  return { client, transport };
}

export const text = (result: CallToolResult, index = 0) => (result.content[index] as { text: string }).text;

/** `gcb mcp` over stdio against the bridge at `bridgeUrl` with `token` (GCB_TOKEN), and the SDK's client on it. */
export async function connectStdio(t: Test, bridgeUrl: string, token: string, name = 'stdio-test'): Promise<{ client: Client; stderr(): string }> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GCB, 'mcp', '--url', bridgeUrl],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', GCB_TOKEN: token },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name, version: '1.0.0' });
  t.teardown(() => client.close());
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export type Via = 'stdio' | 'http';

/** The same credential over both transports: `gcb mcp` over stdio, and the in-process HTTP server. */
export async function bothTransports(t: Test, mcp: McpHttpHandle, bridgeUrl: string, token: string): Promise<Array<{ via: Via; client: Client }>> {
  const [stdio, http] = await Promise.all([connectStdio(t, bridgeUrl, token), connectHttp(t, mcp.url, token)]);
  return [
    { via: 'stdio', client: stdio.client },
    { via: 'http', client: http.client },
  ];
}

/** Every server notification a client receives from now on, with when it came. */
export function recordNotifications(client: Client): Array<{ at: number; notification: ServerNotification }> {
  const seen: Array<{ at: number; notification: ServerNotification }> = [];
  client.fallbackNotificationHandler = async (notification) => void seen.push({ at: Date.now(), notification: notification as ServerNotification });
  return seen;
}
