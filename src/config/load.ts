import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import toml from 'toml';
import type { TSchema } from '@sinclair/typebox';
import { generateToken } from '../auth/token-strength.ts';
import { DEFAULT_TIMINGS, LIMITS } from '../limits.ts';
import { createAjv } from './ajv.ts';
import type { ClockMode } from '../shared/protocol.ts';
import { BridgeToml, SECTIONS } from './schema.ts';

export const CONFIG_FILE = 'bridge.toml';

/** A config the bridge refuses to start with. `message` is the one line shown to the user. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: BridgeToml;
  path: string;
  created: boolean;
  /** Unknown keys found, for one warning each (decisions §2: a warning, not a refusal). */
  unknownKeys: string[];
}

const validate = createAjv().compile<BridgeToml>(BridgeToml);

function template(token: string): string {
  return `# Game Control Bridge configuration. Written on first launch; edit freely.
enabled = true                 # kill switch, re-read every 2 s

[Bridge]
host = "127.0.0.1"             # "127.0.0.1" or "localhost"; the bridge never listens beyond loopback
port = ${LIMITS.portDefault}                    # 1..65535; --port overrides
max_concurrent_requests = ${LIMITS.maxConcurrentDefault}    # 1..64, read once at startup
token = "${token}"
max_body_bytes = ${LIMITS.maxBodyBytesDefault}       # request bodies above this are refused

[Game]
suppress_startup_window = true
fps = ${LIMITS.fpsDefault}                       # frame rate of the game thread, 1..240
saves_dir = "saves"            # relative to the config dir
seed = 1234                    # seed of the world generated at startup
clock = "realtime"             # "realtime", or "lockstep": the world moves only through step (--lockstep)
max_savepoints = ${LIMITS.maxSavepointsDefault}             # savepoints held in memory at once, ${LIMITS.maxSavepointsMin}..${LIMITS.maxSavepointsMax}
step_slice_ms = ${DEFAULT_TIMINGS.stepSliceMs}            # a step gives way after this long while another agent's command waits, ${LIMITS.stepSliceMsMin}..${LIMITS.stepSliceMsMax}
`;
}

/**
 * Reads `bridge.toml` from the config dir, creating dir and file on first launch. The file is
 * created with mode 0600 in the same open() call, so the token is never readable by others, not
 * even for a moment.
 */
export function loadConfig(configDir: string, overrides: { port?: number; clock?: ClockMode } = {}): LoadedConfig {
  const dir = resolve(configDir);
  const path = join(dir, CONFIG_FILE);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let created = false;
  let text: string;
  try {
    text = readFileSync(path).toString(); // UTF-8
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`${path}: cannot read: ${(err as Error).message}`);
    text = template(generateToken());
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    created = true;
  }
  const raw = parseToml(path, text);
  const config = checkConfig(path, raw);
  if (overrides.port !== undefined) {
    // The override may be 0 (any free port), which the library allows and the file does not.
    if (!Number.isInteger(overrides.port) || overrides.port < 0 || overrides.port > 65535) {
      throw new ConfigError(`port ${overrides.port} is not allowed; allowed: an integer from 1 to 65535`);
    }
    config.Bridge.port = overrides.port;
  }
  if (overrides.clock !== undefined) config.Game.clock = overrides.clock;
  return { config, path, created, unknownKeys: findUnknownKeys(raw) };
}

export function parseToml(path: string, text: string): Record<string, unknown> {
  try {
    return toml.parse(text) as Record<string, unknown>;
  } catch (err) {
    // toml places every error it throws: a syntax error by `location`, a key defined twice by `line` and `column`.
    const thrown = err as Error & { line?: number; column?: number; location?: { start: { line: number; column: number } } };
    const at = thrown.location?.start ?? { line: thrown.line, column: thrown.column };
    throw new ConfigError(`${path}: not valid TOML (line ${at.line}, column ${at.column}): ${thrown.message}`);
  }
}

/** Validates and fills defaults; the first problem becomes one line naming the key and what it allows. */
export function checkConfig(path: string, raw: Record<string, unknown>): BridgeToml {
  if (validate(raw)) return raw;
  const error = validate.errors![0]!; // Ajv sets its errors whenever it refuses
  const segments = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  // The schema is two levels deep (sections and their keys), and a TOML document is always a table:
  // an error names a top-level key, or a section and one of its keys.
  const [section, inner] = segments as [string, string?];
  const key = inner === undefined ? section : `[${section}] ${inner}`;
  const schema = schemaAt(segments);
  const value = valueAt(raw, segments);
  // The token is a secret even when mistyped (a stray space, one character off): never echo it.
  const secret = inner === 'token'; // only [Bridge] has a token (and a host)
  const shown = value === undefined ? 'is missing' : secret ? 'is not allowed (value not shown)' : `= ${JSON.stringify(value)} is not allowed`;
  let hint = allowedValues(schema);
  if (inner === 'host') hint += ': the bridge listens on loopback only';
  if (secret) hint += ' (delete the key and bridge.toml to get a fresh one)';
  throw new ConfigError(`${path}: ${key} ${shown}; allowed: ${hint}`);
}

// An error's path runs through tables of the schema only: Ajv checks a table's type before its keys,
// and an unknown key is no error.
function schemaAt(segments: string[]): TSchema {
  let schema: TSchema = BridgeToml;
  for (const segment of segments) schema = (schema.properties as Record<string, TSchema>)[segment]!;
  return schema;
}

function valueAt(raw: Record<string, unknown>, segments: string[]): unknown {
  let value: unknown = raw;
  for (const segment of segments) value = (value as Record<string, unknown>)[segment];
  return value;
}

function allowedValues(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).map((s) => JSON.stringify(s.const)).join(' or ');
  if (schema.type === 'integer') return `an integer from ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'boolean') return 'true or false';
  if (schema.pattern) return `a string matching ${schema.pattern}`;
  if (schema.type === 'string') return 'a non-empty string';
  return 'a table';
}

/** Of a config checkConfig accepted: each section is a table. */
function findUnknownKeys(raw: Record<string, unknown>): string[] {
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'enabled') continue;
    const section = SECTIONS[key];
    if (!section) {
      unknown.push(key);
      continue;
    }
    const known = section.properties as Record<string, unknown>;
    for (const inner of Object.keys(value as Record<string, unknown>)) if (!(inner in known)) unknown.push(`[${key}] ${inner}`);
  }
  return unknown;
}
