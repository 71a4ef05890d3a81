import type { Handler } from 'hono';
import type { Logger } from 'pino';
import { presentedToken, type CredentialTable } from '../auth/credentials.ts';
import { createHostCheck, originAllowed } from '../auth/host-origin.ts';
import { unauthorizedFailure } from '../errors/failures.ts';
import type { Session } from '../session/session.ts';
import { corePath, headersOf, requestId, round, single, type AppContext, type Env, type RequestLog } from './context.ts';
import { requestLineWriter } from './request-line.ts';
import { fail } from './respond.ts';

export interface AuthenticateDeps {
  /** The port the bridge listens on (the Host check needs it; known only after listen with port 0). */
  port(): number;
  credentials: CredentialTable;
  /** Last-seen bookkeeping of the session. */
  session: Pick<Session, 'touch'>;
  log: Logger;
  /**
   * Told of every answer once its log line is complete, before the answer leaves (decisions §9
   * metrics, the `command` audit record); `seconds` unrounded.
   */
  onAnswered?: (line: RequestLog, path: string, seconds: number, c: AppContext) => void;
}

/** Wraps one route's handler (the first of its chain) in the credential check and the log line. */
export type Guard = (handler: Handler<Env>) => Handler<Env>;

const OTHER_PATH = '(other)';

/** Paths logged as sent; any other is logged as OTHER_PATH (a client may put its token there). */
function loggedPath(path: string): string {
  return corePath(path) ?? OTHER_PATH;
}

/**
 * spec step 1, for every path: before any work is queued, so a bad token never takes a slot. A
 * credential is only valid from a loopback client naming the bridge in Host (DNS rebinding
 * defence). It also starts the request's log line, written once the answer is known.
 *
 * A wrapper of each route's handler rather than an `app.use('*')` middleware: a route with one
 * handler then runs without hono's compose, and a synchronous answer (/capabilities, /health with
 * a free slot) is answered in the same turn, without a promise: together half the bridge's own
 * cost of such a request. `onError` is the app's error handler: with no middleware around the
 * handler to catch it, an exception of the handler is answered and logged here.
 */
export function authenticate(deps: AuthenticateDeps, onError: (err: Error, c: AppContext) => Response): Guard {
  const hostAllowed = createHostCheck(deps.port);
  const onAnswered = deps.onAnswered;
  const writeLine = requestLineWriter(deps.log);
  const finish = (line: RequestLog, t0: number, c: AppContext) => {
    const ms = performance.now() - t0;
    line.ms = round(ms);
    writeLine(line);
    if (onAnswered) onAnswered(line, c.req.path, ms / 1000, c);
  };
  return (handler) =>
    function authenticated(c, next) {
      const t0 = performance.now();
      const headers = headersOf(c);
      const rid = requestId(single(headers['x-request-id']));
      const line: RequestLog = {
        rid,
        method: c.req.method,
        path: loggedPath(c.req.path),
        agent: null,
        command: null,
        status: 0,
        code: null,
        admission_wait_ms: 0,
        queue_wait_ms: 0,
        run_ms: 0,
        ms: 0,
      };
      c.set('line', line);
      const caller =
        hostAllowed(single(headers.host)) && originAllowed(single(headers.origin))
          ? deps.credentials.resolve(presentedToken(single(headers.authorization), single(headers['x-wb-token'])))
          : null;
      if (caller === null) {
        const refused = fail(
          c,
          unauthorizedFailure('missing or wrong credential: send Authorization: Bearer <token> (the token is in bridge.toml) from 127.0.0.1'),
          '',
          {},
        );
        finish(line, t0, c);
        return refused;
      }
      line.agent = caller.agentId;
      c.set('caller', caller);
      deps.session.touch(caller);
      let answer: ReturnType<Handler<Env>>;
      try {
        answer = handler(c, next);
      } catch (err) {
        answer = onError(err as Error, c);
      }
      if (!(answer instanceof Promise)) {
        finish(line, t0, c);
        return answer;
      }
      return answer.then(
        (response) => {
          finish(line, t0, c);
          return response;
        },
        (err: unknown) => {
          const response = onError(err as Error, c);
          finish(line, t0, c);
          return response;
        },
      );
    };
}
