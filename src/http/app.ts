import { Hono, type MiddlewareHandler } from 'hono';
import { toFailure } from '../errors/bridge-error.ts';
import { unknownCommandFailure } from '../errors/failures.ts';
import type { ProgressChannel } from '../shared/progress.ts';
import { authenticate, type AuthenticateDeps, type Guard } from './authenticate.ts';
import type { AppContext, Env } from './context.ts';
import { fail } from './respond.ts';
import { capabilitiesRoutes } from './routes/capabilities.ts';
import { cmdRoutes, type CmdDeps } from './routes/cmd.ts';
import { healthRoutes, type HealthDeps } from './routes/health.ts';

export type { Env } from './context.ts';

/** Told of every answer (a 401 too) once its log line is complete, before it leaves; `seconds` unrounded. */
export type AnswerObserver = NonNullable<AuthenticateDeps['onAnswered']>;

/**
 * What a feature adds to the app (events, metrics, the viewer). The feature builds its own entry and
 * createApp mounts it, so http/ names no feature: features depend on the core, never the reverse.
 */
export interface AppEntry {
  /** Routes behind the credential check (spec step 1), mounted with mount(). */
  routes?: Hono<Env>;
  /** Routes answered before the credential check: only for what holds no data (the viewer's page). */
  openRoutes?: Hono<Env>;
  /**
   * Told of every answer where the log line is written, with no middleware in front of any route
   * (decisions §9 metrics, the `command` audit record of POST /cmd).
   */
  onAnswered?: AnswerObserver;
  /**
   * decisions §14: where the progress of a POST /cmd with a Progress-Token goes (the event layer's
   * streams). The first entry that offers one serves; with none, the header is only checked.
   */
  progress?: ProgressChannel;
}

export interface AppDeps extends AuthenticateDeps, CmdDeps, HealthDeps {
  session: AuthenticateDeps['session'] & CmdDeps['session'];
  /** Pre-serialised GET /capabilities body, built once at startup. */
  capabilities: string;
}

/**
 * The HTTP front end. It never listens (tests call app.request()) and never touches the world: it
 * authenticates, parses, admits and hands commands to the dispatcher or the pool. Each endpoint is
 * a small Hono app of its own (routes/), mounted with mount(), which puts the credential check in
 * front of each of its routes (docs/architecture.md: adding an endpoint). Features come in as
 * `entries`, mounted after the core's endpoints in the order given.
 */
export function createApp(deps: AppDeps, entries: readonly AppEntry[] = []): Hono<Env> {
  const app = new Hono<Env>();
  const all = entries;
  const onError = (err: Error, c: AppContext) => fail(c, toFailure(err), c.get('line')?.command ?? '', {});
  // decisions §9: the request series are counted where the log line is written, so a 401 and an
  // unknown path count too, with no middleware in front of every route.
  const onAnswered = observeAll([deps.onAnswered, ...all.map((entry) => entry.onAnswered)]);
  const guard = authenticate(onAnswered ? { ...deps, onAnswered } : deps, onError);
  const mountWith = (routes: Hono<Env>) => mount(app, guard, routes);
  for (const entry of all) if (entry.openRoutes) app.route('/', entry.openRoutes);
  mountWith(capabilitiesRoutes(deps.capabilities));
  mountWith(healthRoutes(deps));
  for (const entry of all) if (entry.routes) mountWith(entry.routes);
  mountWith(cmdRoutes(deps, all.find((entry) => entry.progress)?.progress));

  // decisions §5: any other path or method, after authentication.
  app.notFound(
    guard((c) =>
      fail(
        c,
        unknownCommandFailure(`no such endpoint: ${c.req.method} ${c.req.path} (endpoints: GET /health, GET /capabilities, GET /events, POST /cmd)`),
        '',
        {},
      ),
    ) as (c: AppContext) => Response,
  );
  app.onError(onError);
  return app;
}

/** One observer for the credential check; none when nobody listens, so an answer costs no call. */
function observeAll(observers: readonly (AnswerObserver | undefined)[]): AnswerObserver | undefined {
  const present = observers.filter((observer): observer is AnswerObserver => observer !== undefined);
  if (present.length <= 1) return present[0];
  return (line, path, seconds, c) => {
    for (const observer of present) observer(line, path, seconds, c);
  };
}

/**
 * Adds an endpoint's routes to the app, each behind the credential check (spec step 1): the first
 * handler of every method and path is wrapped by `guard`, after it come `before` (a middleware of
 * the whole endpoint) and the route's other handlers. The sub-app's own middleware (`use`) is not
 * supported: give it to the route's handlers instead.
 */
export function mount(app: Hono<Env>, guard: Guard, routes: Hono<Env>, before?: MiddlewareHandler<Env>): void {
  const chains = new Map<string, { method: string; path: string; handlers: MiddlewareHandler<Env>[] }>();
  for (const route of routes.routes) {
    const key = `${route.method} ${route.path}`;
    let chain = chains.get(key);
    if (!chain) {
      const handlers = before ? [before] : [];
      chains.set(key, (chain = { method: route.method, path: route.path, handlers }));
    }
    chain.handlers.push(route.handler as MiddlewareHandler<Env>);
  }
  for (const { method, path, handlers } of chains.values()) {
    const [first, ...rest] = handlers;
    app.on(method, path, guard(first!), ...rest);
  }
}
