// mount(): every route of an endpoint's sub-app behind the credential check, with one log line per
// request, however its handlers answer (a value, a promise, a throw, a rejection).
import { Hono } from 'hono';
import pino from 'pino';
import t from 'tap';
import { CredentialTable, sha256 } from '../../src/auth/credentials.ts';
import { ROLE_MASKS } from '../../src/auth/permissions.ts';
import { mount } from '../../src/http/app.ts';
import { authenticate } from '../../src/http/authenticate.ts';
import type { AppContext, Env } from '../../src/http/context.ts';
import { fail, send } from '../../src/http/respond.ts';
import { toFailure } from '../../src/errors/bridge-error.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

const caller: CallerContext = {
  agentId: 'legacy',
  agentIndex: 0,
  role: 'god',
  permissions: ROLE_MASKS.god,
  claimedKingdomId: null,
  scenario: 'sandbox',
  partialIntel: false,
  turnBased: false,
  legacyMode: true,
};

function setup(withBefore = true) {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ base: undefined }, { write: (s: string) => lines.push(JSON.parse(s)) });
  const onError = (err: Error, c: AppContext) => fail(c, toFailure(err), '', {});
  const guard = authenticate(
    {
      port: () => 8723,
      credentials: new CredentialTable([{ digest: sha256('good-token'), raw: Buffer.from('good-token'), caller }]),
      session: { touch: () => {} },
      log,
    },
    onError,
  );
  const seen: string[] = [];
  const routes = new Hono<Env>()
    .get('/sync', (c) => send(c, 200, '{"sync":true}'))
    .get('/async', async (c) => send(c, 200, '{"async":true}'))
    .get('/throws', () => {
      throw new Error('boom');
    })
    .get('/rejects', async () => {
      throw new Error('late boom');
    })
    .post(
      '/chain',
      (c, next) => {
        seen.push(`first ${c.get('caller').agentId}`);
        return next();
      },
      (c) => send(c, 200, '{"chain":true}'),
    );
  const app = new Hono<Env>().onError(onError);
  if (withBefore) {
    mount(app, guard, routes, async (c, next) => {
      seen.push(`before ${c.get('caller').agentId}`);
      await next();
    });
  } else {
    // One handler a route: hono calls it without compose, so the guard itself meets the throw.
    mount(app, guard, routes);
  }
  const request = (path: string, token?: string, method = 'GET') =>
    app.request(path, { method, headers: { host: '127.0.0.1:8723', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return { request, lines, seen };
}

t.test('every route of the sub-app is 401 without a credential, before any of its handlers', async (t) => {
  const { request, lines, seen } = setup();
  for (const [path, method] of [
    ['/sync', 'GET'],
    ['/async', 'GET'],
    ['/throws', 'GET'],
    ['/rejects', 'GET'],
    ['/chain', 'POST'],
  ] as const) {
    for (const token of [undefined, 'bad-token']) {
      const res = await request(path, token, method);
      t.equal(res.status, 401, `${method} ${path} ${token ?? 'none'}`);
      t.equal(((await res.json()) as { error: { code: string } }).error.code, 'UNAUTHORIZED');
    }
  }
  t.same(seen, [], 'no handler ran');
  t.equal(lines.length, 10, 'one log line each');
  t.ok(lines.every((l) => l.status === 401 && l.agent === null));
});

t.test('with a credential: the answer, the caller for every handler, one log line with status and agent', async (t) => {
  const { request, lines, seen } = setup();
  t.same(await (await request('/sync', 'good-token')).json(), { sync: true });
  t.same(await (await request('/async', 'good-token')).json(), { async: true });
  t.same(await (await request('/chain', 'good-token', 'POST')).json(), { chain: true });
  t.same(seen, ['before legacy', 'before legacy', 'before legacy', 'first legacy'], '`before` runs after the check, ahead of every route');
  t.same(
    lines.map((l) => [l.path, l.status, l.agent]),
    [
      ['(other)', 200, 'legacy'],
      ['(other)', 200, 'legacy'],
      ['(other)', 200, 'legacy'],
    ],
  );
  t.ok(lines.every((l) => typeof l.ms === 'number' && typeof l.rid === 'string'));
});

t.test('a handler that throws or rejects is answered by the error handler and still logged once', async (t) => {
  for (const withBefore of [true, false]) {
    const { request, lines } = setup(withBefore);
    for (const path of ['/throws', '/rejects']) {
      const res = await request(path, 'good-token');
      t.equal(res.status, 500, `${path}, ${withBefore ? 'in a chain' : 'alone'}`);
      t.equal(((await res.json()) as { error: { code: string } }).error.code, 'GAME_CRASH');
      t.ok(res.headers.get('x-request-id'));
    }
    t.same(
      lines.map((l) => l.status),
      [500, 500],
    );
  }
});
