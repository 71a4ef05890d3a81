import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { header, type Env } from '../context.ts';
import { send } from '../respond.ts';

/**
 * spec: GET /capabilities is never gated by admission and is served directly from descriptors
 * built once at startup; encoded once too, with an ETag so a client that polls it (an MCP server,
 * say) can get a 304.
 */
export function capabilitiesRoutes(capabilities: string): Hono<Env> {
  const body = Buffer.from(capabilities);
  const tag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return new Hono<Env>().get('/capabilities', (c) =>
    header(c, 'if-none-match') === tag ? send(c, 304, '', { etag: tag }) : send(c, 200, body, { etag: tag }),
  );
}
