// gcb mcp over stdio: one session, the token of the config dir (or GCB_TOKEN). stdout carries the
// protocol and nothing else; the process ends when the client closes stdin.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Credential } from './credential.ts';
import { createMcpSession } from './server.ts';

export async function serveStdio(options: { credential: Credential; prefix: string; onClose: () => void }): Promise<void> {
  const { credential, prefix } = options;
  // One session, one credential: its places are its own whoever it is.
  const { server, dispose } = createMcpSession({ credential, prefix, tokenDigest: 'stdio' });
  const transport = new StdioServerTransport();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    dispose();
    credential.close();
    void server.close().finally(options.onClose);
  };
  server.onclose = close;
  // The client closing our stdin is the end of the session (the SDK's transport does not watch for it).
  process.stdin.once('end', close);
  process.stdin.once('close', close);
  await server.connect(transport);
}
