import { Hono } from 'hono';
import { toFailure } from '../errors/bridge-error.ts';
import { authenticate, type AuthenticateDeps } from './authenticate.ts';
import type { Env } from './context.ts';
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
 * a small Hono app of its own (routes/), mounted after the one middleware every path shares.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const app = new Hono<Env>();
  if (deps.view) app.route('/', deps.view);
  if (deps.metrics) app.use('*', deps.metrics.observe);
  app.use('*', authenticate(deps));
  app.route('/', capabilitiesRoutes(deps.capabilities));
  app.route('/', healthRoutes(deps));
  if (deps.events) {
    app.use('/cmd', deps.events.audit);
    app.route('/', deps.events.routes);
  }
  if (deps.metrics) app.route('/', deps.metrics.routes);
  app.route('/', cmdRoutes(deps));

  // decisions §5: any other path or method, after authentication.
  app.all('*', (c) =>
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
  );
  app.onError((err, c) => fail(c, toFailure(err), c.get('line')?.command ?? '', {}));
  return app;
}
