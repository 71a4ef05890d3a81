// Reference: bare hono on @hono/node-server, the same stack the bridge's front end uses.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/health', (c) => c.json({ ok: true, tick: 1 }));
app.post('/cmd', async (c) => {
  const body = (await c.req.json()) as { name: string };
  return c.json({ ok: true, result: { name: body.name }, tick: 1 });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
