// Reference: bare hono on @hono/node-server, the same stack the bridge's front end uses.
// `[--log] [CAPABILITIES [HEALTH]]`. CAPABILITIES: a file whose bytes GET /capabilities serves with
// the bridge's headers, so the bridge's /capabilities is compared with the same payload, not with 20
// bytes. HEALTH: the same for the bridge's /health answer, served at GET /health-same. --log: one
// pino line a request to stderr (request-log.ts), the reference "bare hono + pino".
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { requestLog } from './request-log.ts';

const { values, positionals } = parseArgs({ options: { log: { type: 'boolean' } }, allowPositionals: true });
const app = new Hono();
if (values.log) app.use(requestLog());
app.get('/health', (c) => c.json({ ok: true, tick: 1 }));
app.post('/cmd', async (c) => {
  const body = (await c.req.json()) as { name: string };
  return c.json({ ok: true, result: { name: body.name }, tick: 1 });
});
// The bridge's header set, with values of the same length (a fixed request id), as a plain object:
// the cheapest form hono and node-server have, so the ratio isolates the bridge's own work
// (credential, request id, log line).
const headers = {
  'content-type': 'application/json',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'x-request-id': '00000000-0000-4000-8000-000000000000',
};
const [capabilitiesFile, healthFile] = positionals;
if (capabilitiesFile) {
  const bytes = readFileSync(capabilitiesFile);
  const withTag = { ...headers, etag: `"${'0'.repeat(27)}"` };
  app.get('/capabilities', () => new Response(bytes, { status: 200, headers: withTag }));
}
if (healthFile) {
  const bytes = readFileSync(healthFile, 'utf8');
  app.get('/health-same', () => new Response(bytes, { status: 200, headers }));
}
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
