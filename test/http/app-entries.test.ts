// createApp's entries: a feature registers its routes, open routes, a middleware in front of another
// endpoint and an answer observer, and http/ names no feature. Through app.request().
import { Hono } from 'hono';
import pino from 'pino';
import t from 'tap';
import { Admission } from '../../src/admission/semaphore.ts';
import { CredentialTable, sha256 } from '../../src/auth/credentials.ts';
import { ROLE_MASKS } from '../../src/auth/permissions.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { CommandRegistry } from '../../src/commands/registry.ts';
import type { Execution } from '../../src/dispatch/execute.ts';
import { createApp, type AppDeps, type AppEntry, type Env } from '../../src/http/app.ts';
import { send } from '../../src/http/respond.ts';
import { createMetrics } from '../../src/metrics/index.ts';
import type { CallerContext } from '../../src/shared/caller.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import type { BridgeInfo } from '../../src/shared/protocol.ts';
import { viewEntry } from '../../src/view/routes.ts';

const god: CallerContext = {
  agentId: 'zeus',
  agentIndex: 0,
  role: 'god',
  permissions: ROLE_MASKS.god,
  claimedKingdomId: null,
  scenario: 'sandbox',
  partialIntel: false,
  turnBased: false,
  legacyMode: false,
};

function deps(executed: string[] = []): AppDeps {
  return {
    port: () => 8723,
    credentials: new CredentialTable([{ digest: sha256('god-token'), caller: god }]),
    enabled: () => true,
    registry: new CommandRegistry(COMMANDS, new Set(['getUiState']), pino({ enabled: false })),
    admission: new Admission(2, 200),
    session: { checkTurn: () => null, touch: () => {}, acted: () => {} },
    shared: createSharedState(),
    info: {} as BridgeInfo,
    log: pino({ enabled: false }),
    maxBodyBytes: 1024 * 1024,
    capabilities: '{}',
    execute: async (def): Promise<Execution> => {
      executed.push(def.name);
      return { outcome: { ok: true, value: {} }, queueWaitMs: 0, runMs: 0, settled: null };
    },
  };
}

const request = (app: Hono<Env>, path: string, token?: string, init: RequestInit = {}) =>
  app.request(path, { ...init, headers: { host: '127.0.0.1:8723', ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers } });

t.test("an entry's routes answer behind the credential check, its open routes before it", async (t) => {
  const seen: string[] = [];
  const entry: AppEntry = {
    routes: new Hono<Env>().get('/feature', (c) => {
      seen.push(c.get('caller').agentId);
      return send(c, 200, '{"feature":true}');
    }),
    openRoutes: new Hono<Env>().get('/open', () => new Response('open')),
  };
  const app = createApp(deps(), [entry]);
  t.equal((await request(app, '/feature')).status, 401, 'no credential: 401');
  t.same(seen, [], 'the handler did not run');
  const res = await request(app, '/feature', 'god-token');
  t.equal(res.status, 200);
  t.same(await res.json(), { feature: true });
  t.same(seen, ['zeus'], 'the handler sees the caller');
  t.equal(await (await request(app, '/open')).text(), 'open', 'an open route needs no credential');
});

t.test("every entry's observer is told of every answer, a 401 and an unknown path included", async (t) => {
  const first: string[] = [];
  const second: number[] = [];
  const app = createApp(deps(), [{ onAnswered: (line, path) => first.push(`${path} ${line.status}`) }, { onAnswered: (line) => second.push(line.status) }]);
  await request(app, '/capabilities', 'god-token');
  await request(app, '/capabilities');
  await request(app, '/nowhere', 'god-token');
  t.same(first, ['/capabilities 200', '/capabilities 401', '/nowhere 404']);
  t.same(second, [200, 401, 404]);
});

t.test('metrics register themselves: GET /metrics counts the answers, a 401 included', async (t) => {
  const d = deps();
  const metrics = createMetrics({ shared: d.shared, admission: d.admission, multiAgent: false });
  t.teardown(() => metrics.stop());
  const app = createApp(d, [metrics.entry]);
  await request(app, '/capabilities', 'god-token');
  await request(app, '/capabilities');
  const res = await request(app, '/metrics', 'god-token');
  t.equal(res.status, 200);
  const text = await res.text();
  t.match(text, 'gcb_requests_total{endpoint="/capabilities",command="/capabilities",code="OK"} 1');
  t.match(text, 'gcb_requests_total{endpoint="/capabilities",command="/capabilities",code="UNAUTHORIZED"} 1');
  t.equal((await request(app, '/metrics')).status, 401, 'behind the check');
});

t.test('the viewer registers itself: its page needs no credential, an API path still does', async (t) => {
  const app = createApp(deps(), [viewEntry(() => 8723)]);
  const page = await request(app, '/');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.equal((await request(app, '/capabilities')).status, 401);
});
