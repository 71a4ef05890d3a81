// The references' request log line, written as the design's stack (hono, pino) would write it: a
// hono middleware, pino to stderr, asynchronous in 4 KiB writes, one line a request with the fields
// the bridge's line has for any server (method, path, status, ms to two decimals). A reference with
// it is the same stack doing the one piece of the bridge's own work every server does, so a ratio
// to it tells that work from the rest (credential, request id, admission, metrics, audit).
import type { MiddlewareHandler } from 'hono';
import pino from 'pino';

export function requestLog(): MiddlewareHandler {
  const logger = pino({ base: undefined }, pino.destination({ dest: 2, sync: false, minLength: 4096 }));
  return async function logRequest(c, next) {
    const t0 = performance.now();
    await next();
    logger.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - t0) * 100) / 100 }, 'request');
  };
}
