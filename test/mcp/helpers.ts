// MCP clients for tests: the SDK's own Client over the transports gcb mcp serves, and an MCP
// session built as gcb mcp builds one, over an in-memory transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Test } from 'tap';
import type { BridgeClient } from '../../src/client/client.ts';
import { Credential } from '../../src/mcp/credential.ts';
import { startMcpHttpServer, type McpHttpHandle } from '../../src/mcp/http.ts';
import { createMcpSession } from '../../src/mcp/server.ts';
import { DEFAULT_TOOL_PREFIX } from '../../src/mcp/tools.ts';

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
