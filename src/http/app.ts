import { Hono, type MiddlewareHandler } from 'hono';
import { toFailure } from '../errors/bridge-error.ts';
import { authenticate, type AuthenticateDeps, type Guard } from './authenticate.ts';
import type { AppContext, Env } from './context.ts';
import { fail } from './respond.ts';
import { capabilitiesRoutes } from './routes/capabilities.ts';
import { cmdRoutes, type CmdDeps } from './routes/cmd.ts';
import { healthRoutes, type HealthDeps } from './routes/health.ts';
import type { EventLayer } from '../events/index.ts';
import type { MetricsLayer } from '../metrics/index.ts';

export type { Env } from './context.ts';

export interface AppDeps extends AuthenticateDeps, CmdDeps, HealthDeps {
  session: AuthenticateDeps['session'] & CmdDeps['session'];
  /** Pre-serialised GET /capabilities body, built once at startup. */
  capabilities: string;
  /** decisions §7: GET /events and the audit of POST /cmd. */
  events?: Pick<EventLayer, 'routes' | 'audit'>;
  /** decisions §9: GET /metrics and the request series (absent when metrics are off). */
  metrics?: Pick<MetricsLayer, 'routes' | 'observe'>;
  /** decisions §9: GET / and /view/*, served before authentication: the page holds no data. */
  view?: Hono<Env>;
}

/**
 * The HTTP front end. It never listens (tests call app.request()) and never touches the world: it
 * authenticates, parses, admits and hands commands to the dispatcher or the pool. Each endpoint is
 * a small Hono app of its own (routes/), mounted with mount(), which puts the credential check in
 * front of each of its routes (docs/architecture.md: adding an endpoint).
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const app = new Hono<Env>();
  const onError = (err: Error, c: AppContext) => fail(c, toFailure(err), c.get('line')?.command ?? '', {});
  // decisions §9: the request series are counted where the log line is written, so a 401 and an
  // unknown path count too, with no middleware in front of every route.
  const guard = authenticate(deps.metrics ? { ...deps, onAnswered: deps.metrics.observe } : deps, onError);
  if (deps.view) app.route('/', deps.view);
  mount(app, guard, capabilitiesRoutes(deps.capabilities));
  mount(app, guard, healthRoutes(deps));
  if (deps.events) mount(app, guard, deps.events.routes);
  if (deps.metrics) mount(app, guard, deps.metrics.routes);
  mount(app, guard, cmdRoutes(deps), deps.events?.audit);

  // decisions §5: any other path or method, after authentication.
  app.notFound(
    guard((c) =>
      fail(
        c,
        {
          ok: false,
          code: 'UNKNOWN_COMMAND',
          message: `no such endpoint: ${c.req.method} ${c.req.path} (endpoints: GET /health, GET /capabilities, GET /events, POST /cmd)`,
        },
        '',
        {},
      ),
    ) as (c: AppContext) => Response,
  );
  app.onError(onError);
  return app;
}

/**
 * Adds an endpoint's routes to the app, each behind the credential check (spec step 1): the first
 * handler of every method and path is wrapped by `guard`, after it come `before` (a middleware of
 * the whole endpoint, such as the audit of POST /cmd) and the route's other handlers. The
 * sub-app's own middleware (`use`) is not supported: give it to the route's handlers instead.
 */
export function mount(app: Hono<Env>, guard: Guard, routes: Hono<Env>, before?: MiddlewareHandler<Env>): void {
  const chains = new Map<string, { method: string; path: string; handlers: MiddlewareHandler<Env>[] }>();
  for (const route of routes.routes) {
    const key = `${route.method} ${route.path}`;
    let chain = chains.get(key);
    if (!chain) chains.set(key, (chain = { method: route.method, path: route.path, handlers: before ? [before] : [] }));
    chain.handlers.push(route.handler as MiddlewareHandler<Env>);
  }
  for (const { method, path, handlers } of chains.values()) {
    const [first, ...rest] = handlers;
    app.on(method, path, guard(first!), ...rest);
  }
}
