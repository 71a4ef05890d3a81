// decisions §12: the episode record, `episodes/<name>.jsonl`, one JSON value a line. The game thread
// writes it (commands/shared/recorder.ts) and `gcb replay` reads it back (cli/replay.ts); this is
// the one description of its lines, and the check that refuses a file before anything runs.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { LIMITS } from '../limits.ts';
import { exceedsDepth } from './json-depth.ts';

export const EPISODE_FORMAT = 1;

const Hash = Type.String({ pattern: '^[0-9a-f]{16}$' });
const Tick = Type.Integer({ minimum: 0 });

/** Line 1: what the record starts from. */
export const EpisodeHeaderSchema = Type.Object({
  format: Type.Literal(EPISODE_FORMAT),
  mod_version: Type.String(),
  game: Type.String(),
  seed: Type.Union([Type.Integer(), Type.Null()]),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  tick: Tick,
  hash: Hash,
});

/** One accepted action or control command at its place; `code` null when it succeeded. */
export const EpisodeCommandSchema = Type.Object({
  tick: Tick,
  order: Type.Integer({ minimum: 0 }),
  agent: Type.String(),
  name: Type.String(),
  args: Type.Unknown(),
  code: Type.Union([Type.String(), Type.Null()]),
  /** A savepoint's id in the recording bridge, so a replay maps the rewinds to its own ids. */
  id: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** The world's digest at a tick: after a command that moved the tick, and under realtime every 60 ticks. */
export const EpisodeHashSchema = Type.Object({ tick: Tick, hash: Hash }, { additionalProperties: false });

/** Why a record ended. */
export const RecordEndSchema = Type.Union([Type.Literal('record_stop'), Type.Literal('max_bytes'), Type.Literal('world_swapped')]);

/** The last line: the record ended whole, with the world's digest at that moment. */
export const EpisodeEndSchema = Type.Object({ tick: Tick, hash: Hash, end: RecordEndSchema, lines: Type.Integer({ minimum: 1 }) });

export type EpisodeHeader = Static<typeof EpisodeHeaderSchema>;
export type EpisodeCommand = Static<typeof EpisodeCommandSchema>;
export type EpisodeHash = Static<typeof EpisodeHashSchema>;
export type EpisodeEnd = Static<typeof EpisodeEndSchema>;
export type RecordEnd = Static<typeof RecordEndSchema>;

export type EpisodeEntry = ({ kind: 'command' } & EpisodeCommand) | ({ kind: 'hash' } & EpisodeHash);

export interface Episode {
  header: EpisodeHeader;
  /** The commands and hash lines in file order (the order they happened). */
  entries: EpisodeEntry[];
  end: EpisodeEnd;
}

export function hashLine(tick: number, hash: string): string {
  return JSON.stringify({ tick, hash } satisfies EpisodeHash);
}

export function endLine(tick: number, hash: string, end: RecordEnd, lines: number): string {
  return JSON.stringify({ tick, hash, end, lines: lines + 1 } satisfies EpisodeEnd);
}

/** A record that cannot be replayed: the message is one line saying why. */
export class EpisodeFileError extends Error {}

/** Two versions read each other's records when their major and minor parts agree (0.5.x). */
export function sameRecordVersion(a: string, b: string): boolean {
  return family(a) === family(b);
}

/**
 * Reads a whole record, or throws EpisodeFileError naming the first problem: not JSON, nested too
 * deep, a line of no known shape, another format or version, or no end line (a record cut short).
 */
export function parseEpisode(record: string | Uint8Array, modVersion: string): Episode {
  const bytes = typeof record === 'string' ? Buffer.from(record) : Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  const values = parseLines(bytes);
  const header = values[0];
  if (!isObject(header) || header.format !== EPISODE_FORMAT) {
    const found = isObject(header) && 'format' in header ? `format ${JSON.stringify(header.format)}` : 'no format';
    throw new EpisodeFileError(`line 1 is not a record header of format ${EPISODE_FORMAT} (${found}): this gcb replays records of format ${EPISODE_FORMAT}`);
  }
  if (!Value.Check(EpisodeHeaderSchema, header))
    throw new EpisodeFileError(`line 1, the header, lacks a field or has one of the wrong type: ${firstError(EpisodeHeaderSchema, header)}`);
  if (!sameRecordVersion(header.mod_version, modVersion)) {
    throw new EpisodeFileError(
      `the record was made by mod_version ${header.mod_version}; this gcb is ${modVersion} and replays records of ${family(modVersion)}.x only`,
    );
  }
  const last = values.at(-1);
  if (values.length < 2 || !Value.Check(EpisodeEndSchema, last)) {
    throw new EpisodeFileError(
      `the record has no end line: it was cut short (a bridge that died while recording, or a copy in progress); only a record ended by record_stop can be replayed`,
    );
  }
  const entries: EpisodeEntry[] = [];
  for (let index = 1; index < values.length - 1; index++) entries.push(entryOf(values[index], index + 1));
  return { header, entries, end: last };
}

/**
 * Every line's JSON value. Its nesting is checked on the bytes before it is parsed: whatever walks
 * a parsed line recursively (JSON.stringify, sending its args) would run out of stack on a crafted
 * one. A line is an object around its args, so it may nest one level deeper than they may.
 */
function parseLines(bytes: Buffer): unknown[] {
  if (bytes.every(isSpace)) throw new EpisodeFileError('the record is empty: no header line');
  const values: unknown[] = [];
  for (let start = 0, number = 1; start < bytes.length; number++) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    const line = bytes.subarray(start, end);
    if (exceedsDepth(line, LIMITS.recordArgsMaxDepth + 1)) {
      throw new EpisodeFileError(
        `line ${number} nests deeper than ${LIMITS.recordArgsMaxDepth} levels: a record's args nest ${LIMITS.recordArgsMaxDepth} deep at most`,
      );
    }
    values.push(parseLine(line.toString('utf8'), number, newline === -1));
    start = end + 1;
  }
  return values;
}

function family(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

function parseLine(line: string, number: number, unfinished: boolean): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    if (unfinished) throw new EpisodeFileError(`line ${number} is cut off (no newline, not whole JSON): the record was truncated`);
    throw new EpisodeFileError(`line ${number} is not JSON: this is not a record gcb wrote`);
  }
}

function entryOf(value: unknown, number: number): EpisodeEntry {
  if (Value.Check(EpisodeHashSchema, value)) return { kind: 'hash', ...value };
  if (Value.Check(EpisodeCommandSchema, value)) return { kind: 'command', ...value };
  if (Value.Check(EpisodeEndSchema, value)) throw new EpisodeFileError(`line ${number} is an end line before the last line: the record was pieced together`);
  throw new EpisodeFileError(`line ${number} is neither a command line {tick, order, agent, name, args, code} nor a hash line {tick, hash}`);
}

function firstError(schema: Parameters<typeof Value.Errors>[0], value: unknown): string {
  const error = Value.Errors(schema, value).First();
  return error ? `${error.path || '/'} ${error.message}` : 'unknown';
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function isSpace(byte: number): boolean {
  return byte === 32 || byte === 9 || byte === 10 || byte === 13;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
