// Reference: the design's floor for a pool command. Bare hono on @hono/node-server hands each POST
// /cmd to a piscina pool set up as the bridge's (its default thread count and POOL_SETTINGS) and
// answers with what the task returns. The bridge's whoami does this and its own work on top
// (credential, admission, argument schema, request id, log line, metrics, audit event), so whoami
// against this reference isolates the bridge's share, and this reference against bare hono POST is
// what the pool round trip costs on this machine. `--log`: one pino line a request to stderr
// (request-log.ts), the reference "bare hono + piscina + pino".
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Piscina } from 'piscina';
import { permissionNames } from '../../src/auth/permissions.ts';
import { defaultPoolThreads, POOL_SETTINGS } from '../../src/dispatch/pool.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { requestLog } from './request-log.ts';

const threads = defaultPoolThreads();
// The bench bridge's caller: the legacy token, a god in the sandbox scenario.
const caller: CallerContext = {
  agentId: 'legacy',
  agentIndex: 0,
  role: 'god',
  permissions: 511,
  claimedKingdomId: null,
  scenario: 'sandbox',
  partialIntel: false,
  turnBased: false,
  legacyMode: true,
};
// The task answers with the caller's permission names, as the bridge's whoami does (all nine for a
// god): the same answer crosses the thread and is serialised, not a shorter one.
const pool = new Piscina({
  filename: new URL('./pool-echo-worker.mjs', import.meta.url).href,
  minThreads: threads,
  maxThreads: threads,
  ...POOL_SETTINGS,
  workerData: { permissions: permissionNames(caller.permissions) },
});

const { values } = parseArgs({ options: { log: { type: 'boolean' } } });
const app = new Hono();
if (values.log) app.use(requestLog());
app.post('/cmd', async (c) => {
  const body = (await c.req.json()) as { name: string; args: unknown };
  const outcome = (await pool.run({ command: body.name, args: body.args, caller })) as { value: unknown };
  return c.json({ ok: true, result: outcome.value, tick: 1 });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`READY http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.destroy().then(() => process.exit(0))));
