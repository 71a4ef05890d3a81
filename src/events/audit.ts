// decisions §7 and §13: `command` events, an audit record per POST /cmd answer. The record tells
// who ran what and how it went, not the client's data: its args are a summary of at most 2 KiB
// whatever was sent, with secret-looking keys redacted, and a message's content never in it. A
// refused request is no record at all, so a flood of refusals cannot push world events out of the
// history (the request log and gcb_requests_total still count it).
import { REFUSAL_STATUSES } from '../errors/codes.ts';
import { msText } from '../http/context.ts';
import { LIMITS } from '../limits.ts';
import { jsonString } from '../shared/json-string.ts';

const SECRET_KEY = /token|secret|password|passwd|authorization|api[_-]?key|cookie/i;
const REDACTED = '<redacted>';
/** What stands for a cut: the end of a cut string, or a list or object nested too deep. */
const CUT = '…';
const KEY_MAX_LENGTH = 64;
/** The rest of a summary as JSON, at its largest: `{"args":` `,"truncated":true,"args_bytes":` 16 digits `}`. */
const SUMMARY_FRAME_BYTES = 8 + 17 + 14 + 16 + 1;

// The statuses of a refusal (errors/codes.ts): nearly all are decided before the game; a 400 or 403
// the game thread or the session gives (a tile out of bounds, a broadcast without the permission) is
// a refusal too, and changed nothing either.

/** Whether an answer gets a `command` record: what ran (200), and what failed in running (422, 500, 504), not a refusal. */
export function isAudited(status: number): boolean {
  return !REFUSAL_STATUSES.has(status);
}

/** A `command` record's args: the summary, and, when anything was cut, `truncated` and the args' size. */
export interface ArgsSummary {
  args: unknown;
  truncated?: true;
  /** UTF-8 bytes of the args as JSON (the args as sent, whitespace aside); only when truncated. */
  args_bytes?: number;
}

/**
 * The summary of a command's args: with `truncated` and `args_bytes`, JSON of at most
 * LIMITS.auditArgsMaxBytes bytes, strings cut at
 * LIMITS.auditStringMaxLength characters, at most LIMITS.auditMembersMax members per list or
 * object, LIMITS.auditDepthMax levels of nesting. Every cut string is a copy, so the summary holds
 * nothing of the request's body. `send_message` keeps `to`, `kind` and the content's size only.
 */
export function summarizeArgs(name: string | null, args: unknown): ArgsSummary {
  // Stryker disable next-line ObjectLiteral: an absent flag reads as false too
  const cut = { truncated: false };
  const kept = name === 'send_message' && isObject(args) ? messageArgs(args) : args;
  // Never null here: the top's room (~2 KiB) holds any value's cut form (a cut string is at most 770 bytes).
  const piece = summarize(kept, 0, LIMITS.auditArgsMaxBytes - SUMMARY_FRAME_BYTES, cut)!;
  const summary: ArgsSummary = { args: piece.value };
  if (cut.truncated) {
    summary.truncated = true;
    summary.args_bytes = jsonBytes(args);
  }
  return summary;
}

/** A command name as the client sent it, bounded (an unknown name is whatever the client sent). */
export function shownName(name: string): string {
  return name.length > KEY_MAX_LENGTH ? cutString(name, KEY_MAX_LENGTH) : name;
}

/** decisions §13: never a message's content in a record: who it went to, its kind, its size. */
function messageArgs(args: Record<string, unknown>): Record<string, unknown> {
  // An absent `to` or `kind` is undefined here, which the summary leaves out as JSON would.
  const out: Record<string, unknown> = { to: args.to, kind: args.kind };
  if (typeof args.content === 'string') out.content_bytes = Buffer.byteLength(args.content);
  return out;
}

interface Piece {
  value: unknown;
  /** UTF-8 bytes of JSON.stringify(value). */
  bytes: number;
}

/**
 * `value` summarised in at most `room` bytes of JSON, or null when not even its cut form fits.
 * Members are added while they fit; the first that does not ends its list or object (truncated).
 */
function summarize(value: unknown, depth: number, room: number, cut: { truncated: boolean }): Piece | null {
  let piece: Piece;
  if (typeof value === 'string') {
    let text = value;
    if (text.length > LIMITS.auditStringMaxLength) {
      cut.truncated = true;
      text = cutString(text, LIMITS.auditStringMaxLength);
    }
    piece = { value: text, bytes: stringBytes(text) };
  } else if (typeof value === 'number') {
    piece = { value, bytes: JSON.stringify(value).length };
  } else if (typeof value === 'boolean') {
    piece = { value, bytes: value ? 4 : 5 };
  } else if (value === null || typeof value !== 'object') {
    // Nothing else comes out of JSON.parse; anything else is shown as JSON would show it in a list.
    piece = { value: null, bytes: 4 };
  } else if (depth >= LIMITS.auditDepthMax) {
    cut.truncated = true;
    piece = { value: CUT, bytes: stringBytes(CUT) };
  } else if (Array.isArray(value)) {
    return summarizeList(value, depth, room, cut);
  } else {
    return summarizeObject(value as Record<string, unknown>, depth, room, cut);
  }
  return piece.bytes <= room ? piece : null;
}

function summarizeList(list: readonly unknown[], depth: number, room: number, cut: { truncated: boolean }): Piece | null {
  let bytes = 2; // []
  if (bytes > room) return null;
  const out: unknown[] = [];
  const count = Math.min(list.length, LIMITS.auditMembersMax);
  if (list.length > count) cut.truncated = true;
  for (let i = 0; i < count; i++) {
    const comma = out.length > 0 ? 1 : 0;
    const item = summarize(list[i], depth + 1, room - bytes - comma, cut);
    if (item === null) {
      cut.truncated = true;
      break;
    }
    out.push(item.value);
    bytes += comma + item.bytes;
  }
  return { value: out, bytes };
}

function summarizeObject(object: Record<string, unknown>, depth: number, room: number, cut: { truncated: boolean }): Piece | null {
  let bytes = 2; // {}
  if (bytes > room) return null;
  // No prototype: a client's `__proto__` key stays a plain key.
  const out = Object.create(null) as Record<string, unknown>;
  let members = 0;
  for (const key in object) {
    // What JSON leaves out of an object (never in parsed args) is left out here too.
    if (!Object.hasOwn(object, key) || isUnserialisable(object[key])) continue;
    if (members === LIMITS.auditMembersMax) {
      cut.truncated = true;
      break;
    }
    let shownKey = key;
    if (key.length > KEY_MAX_LENGTH) {
      cut.truncated = true;
      shownKey = cutString(key, KEY_MAX_LENGTH);
    }
    // Two long keys cut to the same text: the second is left out.
    if (Object.hasOwn(out, shownKey)) {
      // Stryker disable next-line BooleanLiteral: two keys shown alike means one was cut, which set the flag already
      cut.truncated = true;
      continue;
    }
    const comma = members > 0 ? 1 : 0;
    const keyBytes = stringBytes(shownKey) + 1; // "key":
    const left = room - bytes - comma - keyBytes;
    const member = SECRET_KEY.test(key) ? { value: REDACTED, bytes: stringBytes(REDACTED) } : summarize(object[key], depth + 1, left, cut);
    if (member === null || member.bytes > left) {
      cut.truncated = true;
      break;
    }
    out[shownKey] = member.value;
    bytes += comma + keyBytes + member.bytes;
    members++;
  }
  return { value: out, bytes };
}

/**
 * `text` cut to `max` characters, the last one `…`, never inside a surrogate pair, as a string of
 * its own. A cut made with `slice` may share the whole string it was cut from (a V8 sliced
 * string), and a string joined from pieces keeps them: either would keep a 1 MB argument alive as
 * long as the record. A round trip through UTF-16 bytes is exact and makes a fresh, flat string.
 * (What is kept whole needs no copy: JSON.parse makes every string it returns anew.)
 */
function cutString(text: string, max: number): string {
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return Buffer.from(text.slice(0, end) + CUT, 'utf16le').toString('utf16le');
}

/** Printable ASCII but `"` and `\`: JSON writes it as it is. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function stringBytes(text: string): number {
  return PLAIN.test(text) ? text.length + 2 : Buffer.byteLength(JSON.stringify(text));
}

/** UTF-8 bytes of `value` as JSON; 0 for what JSON cannot hold. */
function jsonBytes(value: unknown): number {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : Buffer.byteLength(text);
  } catch {
    return 0;
  }
}

function isUnserialisable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Records mostly come from the same agent: its name as JSON is kept for the next record.
let lastAgent = '';
let lastAgentJson = '""';

/**
 * The `command` audit record's fields, written as JSON text (event.ts EventFields): built on every
 * POST /cmd, where an object, its copy into the event and the serialiser's walk of its keys cost
 * more than the template. The same members in the same order as the object would have.
 */
export function commandRecord(
  agent: string,
  request: { name: string; args: unknown } | undefined,
  line: { status: number; code: string | null },
  ms: number,
  place: { tick: number; order: number } | undefined,
): string {
  if (agent !== lastAgent) {
    lastAgent = agent;
    lastAgentJson = jsonString(agent);
  }
  let json: string;
  if (request) {
    json = `,"agent":${lastAgentJson},"name":${jsonString(shownName(request.name))}`;
    const summary = summarizeArgs(request.name, request.args);
    json += `,"args":${JSON.stringify(summary.args)}`;
    if (summary.truncated) json += `,"truncated":true,"args_bytes":${summary.args_bytes}`;
  } else {
    json = `,"agent":${lastAgentJson},"name":null,"args":null`;
  }
  // code is an ErrorCode (nothing to escape: errors/codes.ts).
  json += `,"ok":${line.status === 200},"code":${line.code === null ? 'null' : `"${line.code}"`},"status":${line.status},"ms":${msText(ms)}`;
  // decisions §12: where the command ran, (tick, order), when it reached the game thread. Not a
  // top-level tick: the event's own tick is the one its answer left at (a step's last).
  if (place) json += `,"place":${JSON.stringify(place)}`;
  return json;
}
