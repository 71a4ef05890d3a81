// `gcb call NAME key=value ...`: args from the command line, typed by the command's JSON Schema
// (from GET /capabilities) so `x=10` is an integer and `entity_id=123` stays a string.
// `key:=JSON` takes raw JSON; `a.b=1` builds nested objects; `--json '{...}'` is the base object.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Schema = Record<string, unknown>;

export function parseArgsObject(text: string, where = '--json'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isRecord(value)) throw new UsageError(`${where} must be a JSON object, like '{"x": 10}'`);
  return value;
}

/** Merges `pairs` into a copy of `base`; a pair wins over the same key in base. */
export function buildArgs(pairs: readonly string[], base: Record<string, unknown> = {}, schema?: Schema): Record<string, unknown> {
  const args: Record<string, unknown> = structuredClone(base);
  for (const pair of pairs) {
    const match = /^([^=:]+?)(:=|=)([\s\S]*)$/.exec(pair);
    if (!match) throw new UsageError(`'${pair}' is not key=value (or key:=JSON)`);
    const [, key, op, raw] = match as unknown as [string, string, string, string];
    const path = key.split('.');
    if (path.some((segment) => segment === '' || segment === '__proto__' || segment === 'constructor' || segment === 'prototype')) {
      throw new UsageError(`'${key}' is not a usable key`);
    }
    const value = op === ':=' ? parseJson(raw, key) : coerce(raw, schemaAt(schema, path));
    setPath(args, path, value);
  }
  return args;
}

function parseJson(raw: string, key: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`${key}:= needs JSON: ${(err as Error).message}`);
  }
}

function schemaAt(schema: Schema | undefined, path: string[]): Schema | undefined {
  let current = schema;
  for (const segment of path) {
    const properties = current?.properties;
    current = isRecord(properties) && isRecord(properties[segment]) ? (properties[segment] as Schema) : undefined;
  }
  return current;
}

/** The JSON types a schema admits: its `type`, and those of its anyOf/oneOf members and consts. */
function typesOf(schema: Schema): Set<string> {
  const types = new Set<string>();
  const type = schema.type;
  if (typeof type === 'string') types.add(type);
  if (Array.isArray(type)) for (const t of type) types.add(String(t));
  if ('const' in schema) types.add(schema.const === null ? 'null' : typeof schema.const);
  if (Array.isArray(schema.enum)) for (const v of schema.enum) types.add(v === null ? 'null' : typeof v);
  for (const key of ['anyOf', 'oneOf']) {
    const members = schema[key];
    if (Array.isArray(members)) for (const member of members) if (isRecord(member)) for (const t of typesOf(member)) types.add(t);
  }
  if (types.has('integer')) types.add('number');
  return types;
}

function coerce(raw: string, schema: Schema | undefined): unknown {
  if (schema === undefined) return guess(raw);
  const types = typesOf(schema);
  if (types.size === 0) return guess(raw);
  if (raw === 'null' && types.has('null')) return null;
  if ((raw === 'true' || raw === 'false') && types.has('boolean')) return raw === 'true';
  if (types.has('number') && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if ((types.has('object') || types.has('array')) && /^\s*[[{]/.test(raw)) return parseJson(raw, 'value');
  // Anything else goes as the string it is; the bridge's schema check names what is wrong with it.
  return raw;
}

/** No schema to go by (a property the command does not declare): JSON if it parses, else the string. */
function guess(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (!isRecord(next)) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
