import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { presentedToken, type CredentialTable } from '../auth/credentials.ts';
import { createHostCheck, originAllowed } from '../auth/host-origin.ts';
import type { Session } from '../session/session.ts';
import { header, round, type Env, type RequestLog } from './context.ts';
import { fail } from './respond.ts';

export interface AuthenticateDeps {
  /** The port the bridge listens on (the Host check needs it; known only after listen with port 0). */
  port(): number;
  credentials: CredentialTable;
  /** Last-seen bookkeeping of the session. */
  session: Pick<Session, 'touch'>;
  log: Logger;
}

// decisions §11: a client's request id is kept only in this shape, so what it chooses can neither
// forge log fields nor carry a secret of any length into a log line; anything else gets a fresh one.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Paths logged as sent; any other is logged as OTHER_PATH (a client may put its token there). */
const ENDPOINTS = new Set(['/cmd', '/health', '/capabilities']);
const OTHER_PATH = '(other)';

/**
 * spec step 1, for every path: before any work is queued, so a bad token never takes a slot. A
 * credential is only valid from a loopback client naming the bridge in Host (DNS rebinding
 * defence). It also starts the request's log line, written once the answer is known.
 */
export function authenticate(deps: AuthenticateDeps): MiddlewareHandler<Env> {
  const hostAllowed = createHostCheck(deps.port);
  return async function authenticateRequest(c, next) {
    const t0 = performance.now();
    const requestId = header(c, 'x-request-id');
    const rid = requestId !== undefined && REQUEST_ID.test(requestId) ? requestId : randomUUID();
    const line: RequestLog = {
      rid,
      method: c.req.method,
      path: ENDPOINTS.has(c.req.path) ? c.req.path : OTHER_PATH,
      agent: null,
      command: null,
      status: 0,
      code: null,
      admission_wait_ms: 0,
      queue_wait_ms: 0,
      run_ms: 0,
      ms: 0,
    };
    c.set('rid', rid);
    c.set('line', line);
    const caller =
      hostAllowed(header(c, 'host')) && originAllowed(header(c, 'origin'))
        ? deps.credentials.resolve(presentedToken(header(c, 'authorization'), header(c, 'x-wb-token')))
        : null;
    if (caller === null) {
      c.res = fail(
        c,
        {
          ok: false,
          code: 'UNAUTHORIZED',
          message: 'missing or wrong credential: send Authorization: Bearer <token> (the token is in bridge.toml) from 127.0.0.1',
        },
        '',
        {},
      );
    } else {
      line.agent = caller.agentId;
      c.set('caller', caller);
      deps.session.touch(caller);
      await next();
    }
    line.ms = round(performance.now() - t0);
    deps.log.info(line, 'request');
  };
}
