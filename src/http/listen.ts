import { createServer, type IncomingMessage, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import { createHostCheck } from '../auth/host-origin.ts';
import { badArgsFailure, unauthorizedFailure, type Failure } from '../errors/failures.ts';
import { LIMITS } from '../limits.ts';
import { requestId } from './context.ts';
import { errorBody, statusOf } from './envelope.ts';
import { NO_STORE, NOSNIFF } from './respond.ts';

/**
 * The Node server in front of the app, listening on 127.0.0.1 only (spec: loopback). A request the
 * adapter cannot even turn into a web Request (a Host that is not an authority, such as `user@host`
 * or a comma list; a request target that is not a path) never reaches the app: it is answered here,
 * still with the error envelope and X-Request-Id like every other refusal, and logged.
 */
export function listen(options: { fetch: Parameters<typeof getRequestListener>[0]; port: number; log: Logger }): Promise<Server> {
  // The bridge's port is known only once listening (port 0): the check reads it then.
  let port = options.port;
  const hostAllowed = createHostCheck(() => port);
  let current: IncomingMessage | undefined;
  const requestListener = getRequestListener(options.fetch, {
    hostname: '127.0.0.1',
    // Called synchronously from inside the listener call below when the request cannot be built,
    // so `current` is still the request it is about.
    errorHandler: () => refuse(current, hostAllowed, options.log),
  });
  const server = createServer(
    {
      headersTimeout: LIMITS.headersTimeoutMs,
      requestTimeout: LIMITS.requestTimeoutMs,
      keepAliveTimeout: LIMITS.keepAliveTimeoutMs,
      connectionsCheckingInterval: LIMITS.connectionsCheckingIntervalMs,
    },
    (incoming, outgoing) => {
      current = incoming;
      const done = requestListener(incoming, outgoing);
      current = undefined;
      return done;
    },
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      port = (server.address() as { port: number }).port;
      resolve(server);
    });
  });
}

function refuse(incoming: IncomingMessage | undefined, hostAllowed: (host: string | undefined) => boolean, log: Logger): Response {
  const host = incoming?.headers.host;
  // decisions §5: a Host that does not name the bridge is 401 before anything else.
  const failure: Failure = hostAllowed(host)
    ? badArgsFailure('the request target must be a path such as /cmd')
    : unauthorizedFailure('the Host header must be 127.0.0.1:PORT or localhost:PORT; a credential is only valid from loopback clients');
  const sent = incoming?.headers['x-request-id'];
  const rid = requestId(typeof sent === 'string' ? sent : undefined);
  const status = statusOf(failure);
  log.info({ rid, method: incoming?.method ?? '', path: '(other)', agent: null, command: null, status, code: failure.code }, 'request');
  return new Response(errorBody(failure, '', {}), {
    status,
    headers: { 'content-type': 'application/json', 'x-content-type-options': NOSNIFF, 'cache-control': NO_STORE, 'x-request-id': rid },
  });
}
