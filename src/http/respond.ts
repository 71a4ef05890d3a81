import { badArgsFailure, type Failure } from '../errors/failures.ts';
import type { AppContext } from './context.ts';
import { errorBody, statusOf } from './envelope.ts';

const JSON_TYPE = 'application/json';
// decisions §11: no client may sniff an answer into another type, and no cache may keep one (they
// carry world state and, for some commands, what only this caller may see).
export const NOSNIFF = 'nosniff';
export const NO_STORE = 'no-store';

/**
 * Every answer of the bridge leaves through here, so its headers are set in one place. A Response
 * with a plain headers object: @hono/node-server writes it as is, where c.body() would build (and
 * node-server then unpack) a web Headers on every request.
 */
export function send(c: AppContext, status: number, body: string | Uint8Array, extra?: Record<string, string>): Response {
  const line = c.get('line');
  line.status = status;
  // The line carries the request id too: one lookup of the context's variables, not two.
  return new Response(status === 304 ? null : (body as string), {
    status,
    headers: extra
      ? { 'content-type': JSON_TYPE, 'x-content-type-options': NOSNIFF, 'cache-control': NO_STORE, 'x-request-id': line.rid, ...extra }
      : { 'content-type': JSON_TYPE, 'x-content-type-options': NOSNIFF, 'cache-control': NO_STORE, 'x-request-id': line.rid },
  });
}

/** The error envelope with its status (decisions §5: BUSY adds Retry-After: 1). */
export function fail(c: AppContext, failure: Failure, command: string, args: unknown): Response {
  c.get('line').code = failure.code;
  const extra = failure.code === 'BUSY' ? { 'retry-after': '1' } : undefined;
  return send(c, statusOf(failure), errorBody(failure, command, args), extra);
}

export function overLimit(maxBodyBytes: number): Failure {
  return badArgsFailure(`request body is larger than the ${maxBodyBytes}-byte limit ([Bridge] max_body_bytes); load large worlds by path, not bytes_b64`);
}
