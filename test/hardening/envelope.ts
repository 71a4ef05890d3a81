// What a valid answer of POST /cmd looks like, written from docs/spec.md (Errors, the envelopes) and
// decisions §5, not from the bridge's own tables, so the check is independent of the code it checks.
import { isDeepStrictEqual } from 'node:util';
import type { Reply } from './helpers.ts';

/** spec: Errors. Code → HTTP status. */
export const SPEC_STATUS: Readonly<Record<string, number>> = Object.freeze({
  UNKNOWN_COMMAND: 404,
  BAD_ARGS: 400,
  UNKNOWN_ASSET: 400,
  OUT_OF_BOUNDS: 400,
  GAME_REJECTED: 422,
  GAME_CRASH: 500,
  MAIN_THREAD_TIMEOUT: 504,
  UNAUTHORIZED: 401,
  DISABLED: 503,
  BUSY: 503,
  PERMISSION_DENIED: 403,
  FACTION_SCOPE_VIOLATION: 403,
  TURN_NOT_YOURS: 409,
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Problems with one answer of POST /cmd (empty when it is a valid envelope). `command` and `args`
 * are what the error envelope must echo: the name and the args as the server parsed them, or ""
 * and {} when the body never got that far.
 */
export function envelopeProblems(reply: Reply, expected?: { command: string; args: unknown }): string[] {
  const problems: string[] = [];
  const contentType = reply.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/json')) problems.push(`content-type ${JSON.stringify(contentType)}`);
  if (!reply.headers.get('x-request-id')) problems.push('no X-Request-Id');
  for (const name of reply.headers.keys()) if (name.startsWith('access-control-')) problems.push(`CORS header ${name}`);
  const body = reply.body;
  if (!isObject(body)) return [...problems, `body is not a JSON object: ${reply.text.slice(0, 200)}`];
  if (reply.status === 200) {
    if (body.ok !== true) problems.push('200 without ok: true');
    if (!isObject(body.result)) problems.push('200 without an object result');
    if (!Number.isInteger(body.tick) || (body.tick as number) < 0) problems.push(`tick ${JSON.stringify(body.tick)}`);
    const extra = Object.keys(body).filter((k) => !['ok', 'result', 'tick'].includes(k));
    if (extra.length) problems.push(`success envelope has extra keys ${extra.join(',')}`);
    return problems;
  }
  if (body.ok !== false) problems.push(`status ${reply.status} without ok: false`);
  const error = body.error;
  if (!isObject(error)) return [...problems, 'no error object'];
  const code = error.code;
  if (typeof code !== 'string' || !(code in SPEC_STATUS)) problems.push(`unknown code ${JSON.stringify(code)}`);
  else if (SPEC_STATUS[code] !== reply.status) problems.push(`code ${code} with status ${reply.status} (spec: ${SPEC_STATUS[code]})`);
  if (typeof error.message !== 'string' || error.message.length === 0) problems.push('no error.message');
  if (typeof error.command !== 'string') problems.push('no error.command');
  if (!isObject(error.args)) problems.push('error.args is not an object');
  if (expected) {
    if (error.command !== expected.command) problems.push(`error.command ${JSON.stringify(error.command)}, expected ${JSON.stringify(expected.command)}`);
    // JSON cannot carry Infinity: what was received as 1e400 is echoed as null. Compare as JSON.
    const echoed = JSON.parse(JSON.stringify(expected.args ?? {})) as unknown;
    if (!isDeepStrictEqual(error.args, echoed))
      problems.push(`error.args ${JSON.stringify(error.args).slice(0, 200)} is not the args as received ${JSON.stringify(echoed).slice(0, 200)}`);
  }
  if ('did_you_mean' in error) {
    // UNKNOWN_ASSET (spec), and UNKNOWN_COMMAND for a name that is no command (docs/game-module.md).
    if (code !== 'UNKNOWN_ASSET' && code !== 'UNKNOWN_COMMAND') problems.push(`did_you_mean on ${String(code)}`);
    if (!Array.isArray(error.did_you_mean) || error.did_you_mean.length > 5 || !error.did_you_mean.every((s) => typeof s === 'string'))
      problems.push('did_you_mean is not up to 5 strings');
  }
  if ('exception' in error) {
    const exception = error.exception;
    if (code !== 'GAME_CRASH' && code !== 'GAME_REJECTED') problems.push(`exception on ${String(code)}`);
    if (!isObject(exception) || typeof exception.type !== 'string' || typeof exception.message !== 'string' || typeof exception.stack_top !== 'string')
      problems.push('exception is not {type, message, stack_top}');
  } else if (code === 'GAME_CRASH' || code === 'GAME_REJECTED') {
    problems.push(`${String(code)} without exception`);
  }
  if (code === 'BUSY' && reply.headers.get('retry-after') !== '1') problems.push('BUSY without Retry-After: 1');
  const extra = Object.keys(error).filter((k) => !['code', 'message', 'command', 'args', 'did_you_mean', 'exception'].includes(k));
  if (extra.length) problems.push(`error has extra keys ${extra.join(',')}`);
  return problems;
}
