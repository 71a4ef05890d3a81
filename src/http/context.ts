import { randomUUID } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { ErrorCode } from '../errors/codes.ts';
import type { CallerContext } from '../shared/caller.ts';
import type { Place } from '../shared/protocol.ts';
import type { CommandRequest } from './body.ts';

/**
 * One log line per request: agent, command, status, code, waits and run time. `rid`, `method`,
 * `path` and `code` are written into the line without escaping (request-line.ts), so each must hold
 * no `"`, `\` or control character, and (so that a line with ASCII names can be copied as bytes)
 * nothing beyond ASCII: a request id of requestId()'s shape or a UUID, a method Node's parser (or
 * the web Request) accepted as an HTTP token, a path of the credential check's fixed set, an
 * ErrorCode.
 */
export interface RequestLog {
  rid: string;
  method: string;
  path: string;
  agent: string | null;
  command: string | null;
  status: number;
  code: ErrorCode | null;
  admission_wait_ms: number;
  queue_wait_ms: number;
  run_ms: number;
  ms: number;
}

/** What every handler of the app can read from the context (set by the authenticate middleware). */
export type Env = {
  Bindings: Partial<HttpBindings>;
  /**
   * line: the request's log line, which carries its request id too. cmdRequest: POST /cmd's parsed body, once parsed; place: where its frame step started (decisions
   * §12). The `command` audit event reads both.
   */
  Variables: { caller: CallerContext; line: RequestLog; cmdRequest: CommandRequest | undefined; place: Place | undefined };
};
export type AppContext = Context<Env>;

/**
 * A request header. Served by @hono/node-server, Node has already parsed the headers into a plain
 * object; asking the web Request instead builds a whole undici Headers on every request, which
 * cost the hot path more than everything the bridge itself does there. Tests through app.request()
 * have no Node request and take the web path.
 */
export function header(c: AppContext, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (incoming) {
    const value = incoming.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return c.req.header(name);
}

/**
 * Every header of the request, for a caller that reads several (the credential check reads five):
 * Node's own object once, rather than a lookup of it per header. Values as Node keeps them (an
 * array for a repeated header): read one with single(). Tests through app.request() get a copy.
 */
export function headersOf(c: AppContext): Readonly<Record<string, string | string[] | undefined>> {
  return c.env?.incoming?.headers ?? c.req.header();
}

/** One header's value from headersOf(), a repeated header's values joined as header() does. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The core's endpoint path as its constant, or null for any other path. Compared as text: the path
 * is a fresh string each request, which a set lookup would hash first. The constant is returned,
 * not the path, so what compares or looks it up later (label maps) finds a string already hashed.
 */
export function corePath(path: string): string | null {
  switch (path) {
    case '/cmd':
      return '/cmd';
    case '/health':
      return '/health';
    case '/capabilities':
      return '/capabilities';
    case '/events':
      return '/events';
    default:
      return null;
  }
}

/** Milliseconds to two decimals, for log lines. */
export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * String(ms), for a value of round() written on every request (the log line, the audit record):
 * from its whole hundredths, whose parts are small integers, rather than through V8's formatting
 * of a fraction (about 1,000 instructions each). Any other value is given to String().
 */
export function msText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  // Only a value of round() below 1e13 ms: its shortest form is its two decimals, trailing zeros cut.
  if (!(hundredths >= 0 && hundredths < 1e15 && hundredths / 100 === ms)) return String(ms);
  const cents = hundredths % 100;
  const whole = (hundredths - cents) / 100;
  if (cents === 0) return `${whole}`;
  if (cents % 10 === 0) return `${whole}.${cents / 10}`;
  return `${whole}.${cents < 10 ? '0' : ''}${cents}`;
}

// decisions §11: a client's request id is kept only in this shape, so what it chooses can neither
// forge log fields nor carry a secret of any length into a log line; anything else gets a fresh one.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** decisions §5: the client's X-Request-Id when it sent a usable one, else a fresh one. */
export function requestId(sent: string | undefined): string {
  return sent !== undefined && REQUEST_ID.test(sent) ? sent : randomUUID();
}
