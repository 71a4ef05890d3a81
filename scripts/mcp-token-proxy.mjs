#!/usr/bin/env node
// `node scripts/mcp-token-proxy.mjs [--port 8725] [--target http://127.0.0.1:8724/mcp]`: a loopback
// proxy in front of `gcb mcp --http` that adds `Authorization: Bearer $GCB_TOKEN` to every request,
// for an MCP client that cannot send a header of its own (the MCP conformance suite, some hosts).
// Anything on this machine that reaches the proxy acts with that token, so, like gcb mcp itself, it
// listens on 127.0.0.1 only and refuses a Host or an Origin that is not loopback (a web page).
import { createServer, request } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8725' }, target: { type: 'string', default: 'http://127.0.0.1:8724/mcp' } } });
const token = process.env.GCB_TOKEN;
if (!token) {
  process.stderr.write('mcp-token-proxy: set GCB_TOKEN to the bridge token to add (gcb token prints it)\n');
  process.exit(2);
}
const target = new URL(values.target);
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

const server = createServer((req, res) => {
  const origin = req.headers.origin;
  if (!LOOPBACK.test(req.headers.host ?? '') || (origin !== undefined && !LOOPBACK_ORIGIN.test(origin))) {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('only loopback hosts and origins may use this proxy\n');
    return;
  }
  const headers = { ...req.headers, host: target.host, authorization: `Bearer ${token}` };
  delete headers.origin;
  const upstream = request(
    { host: target.hostname, port: target.port, method: req.method, path: target.pathname + new URL(req.url ?? '/', 'http://x').search, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      // An SSE stream may say nothing for a while: its head goes now, not with its first event.
      res.flushHeaders();
      answer.pipe(res);
    },
  );
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`gcb mcp at ${target.href} did not answer: ${err.message}\n`);
  });
  // A client that goes away ends the request it made upstream too (a cancelled SSE stream, say).
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
});
server.listen(Number(values.port), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`mcp-token-proxy listening on http://127.0.0.1:${port}/mcp (to ${target.href})\n`);
});
