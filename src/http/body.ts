import { badArgs, type BridgeError } from '../errors/bridge-error.ts';
import { LIMITS } from '../limits.ts';
import { exceedsDepth } from '../shared/json-depth.ts';

export { exceedsDepth };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export interface CommandRequest {
  name: string;
  /** The args as received ({} when absent), validated later against the command's schema. */
  args: Record<string, unknown>;
}

/** decisions §5: application/json, parameters such as charset allowed. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  // What nearly every client sends: no need to cut, trim or lower-case it.
  if (value === 'application/json') return true;
  const semicolon = value.indexOf(';');
  const type = (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json';
}

/**
 * Parses the body of POST /cmd. Every failure is 400 BAD_ARGS (decisions §5): not UTF-8, nested
 * deeper than 64, malformed JSON, not an object, `name` missing or not a string, `args` not an
 * object. JSON.parse keeps `__proto__` as an own property, so no prototype is ever touched; for
 * duplicate keys the last one wins, as JSON.parse does.
 */
export function parseCommandBody(bytes: Uint8Array): CommandRequest | BridgeError {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return badArgs('request body is not valid UTF-8');
  }
  if (exceedsDepth(bytes, LIMITS.maxJsonDepth)) {
    return badArgs(`request body is nested deeper than ${LIMITS.maxJsonDepth} levels`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return badArgs(`request body is not valid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(body)) return badArgs('request body must be a JSON object {"name": ..., "args": {...}}');
  const { name, args } = body;
  if (typeof name !== 'string') return badArgs('"name" must be a string naming a command (GET /capabilities lists them)');
  if (args !== undefined && !isPlainObject(args)) return badArgs('"args" must be a JSON object');
  return { name, args: (args ?? {}) as Record<string, unknown> };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
