// JSON Schema (the `schema` of each /capabilities descriptor) → fast-check arbitraries of valid and
// near-valid args, and the oracle that says what the bridge must answer for them. Shared by
// test/hardening/fuzz.test.ts (1,000 cases) and bench/fuzz.ts (10,000).
//
// Generated args are a small JSON tree rather than JS objects, so that keys such as `__proto__`,
// duplicate keys and numbers JSON.stringify cannot write (1e400, -0, 9007199254740993) reach the
// wire exactly as generated. The oracle parses the text it sent, as the bridge does.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { envelopeProblems } from './envelope.ts';
import type { Reply } from './helpers.ts';

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
}

export interface CommandDescriptor {
  name: string;
  schema: JsonSchema;
}

/** A number written verbatim into the JSON text. */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** An object as ordered entries: keys like `__proto__` stay plain keys, duplicates are allowed. */
export class JsonObject {
  constructor(readonly entries: ReadonlyArray<readonly [string, Json]>) {}
}

export type Json = null | boolean | number | string | RawNumber | JsonObject | Json[];

export function toJsonText(value: Json | undefined): string {
  if (value === undefined) return 'null';
  if (value instanceof RawNumber) return value.text;
  if (value instanceof JsonObject) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  return JSON.stringify(value);
}

/** A request of the fuzz: `args` undefined means the key is left out. */
export interface FuzzRequest {
  name: string;
  args: Json | undefined;
}

export function requestText(request: FuzzRequest): string {
  const name = JSON.stringify(request.name);
  return request.args === undefined ? `{"name":${name}}` : `{"name":${name},"args":${toJsonText(request.args)}}`;
}

export interface ArbitraryOptions {
  /**
   * Upper bounds on the valid values of integer properties, by property name, so that a test run
   * stays cheap (world size, pulses, screenshot size). Near-valid values still probe the schema's
   * own bounds. bench:fuzz passes none.
   */
  caps?: Readonly<Record<string, number>>;
  /** Realistic values for string properties, by name (asset ids from list_*, agent ids). */
  samples?: Readonly<Record<string, readonly string[]>>;
}

const HUGE = ['1e400', '-1e400', '1e308', '-1e308', '9007199254740993', '123456789012345678901234567890', '1E2', '1.0', '-0', '0.0'];
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'nul\u0000byte',
  '..',
  '../..',
  '../bridge.toml',
  '/etc/passwd',
  '%2e%2e%2f',
  'a/b',
  'C:\\Windows',
  '\ud800',
  '\udfff\ud800',
  '\u202etxt.exe',
  '😀'.repeat(20),
  'x'.repeat(300),
  'y'.repeat(5000),
  '__proto__',
  'constructor',
  'NaN',
  'null',
  '<script>',
  '${token}',
];
const EXTRA_KEYS = ['extra', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'x\u0000'];

function integerRange(schema: JsonSchema, name: string, options: ArbitraryOptions): fc.Arbitrary<number> {
  const min = schema.minimum;
  const cap = options.caps?.[name];
  const max = schema.maximum === undefined ? cap : cap === undefined ? schema.maximum : Math.min(schema.maximum, cap);
  if (min !== undefined && max !== undefined) {
    return fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
  }
  // Unbounded (coordinates, ids, offsets): mostly near the map, sometimes anywhere.
  const lo = min ?? -(2 ** 31);
  const hi = max ?? 2 ** 31 - 1;
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: Math.max(lo, -16), max: Math.min(hi, 300) }) },
    { weight: 2, arbitrary: fc.integer({ min: lo, max: hi }) },
    { weight: 1, arbitrary: fc.constantFrom(...[lo, hi, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e20].filter((n) => n >= lo && n <= hi)) },
  );
}

/** Values the schema accepts. */
export function validValue(schema: JsonSchema, name: string, options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validValue(s, name, options)));
  if (schema.const !== undefined) return fc.constant(schema.const as Json);
  switch (schema.type) {
    case 'integer':
      return integerRange(schema, name, options);
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(schema.minimum === undefined ? {} : { min: schema.minimum }),
        ...(schema.maximum === undefined ? {} : { max: schema.maximum }),
      });
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.min(schema.maxLength ?? 48, 48);
      let free: fc.Arbitrary<string> = fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: 'binary' }));
      if (schema.pattern) free = fc.stringMatching(new RegExp(schema.pattern));
      // Strings the schema allows but a handler may choke on: long, NUL, dots, slashes, surrogates.
      const nasty = schema.pattern
        ? []
        : NASTY_STRINGS.filter((n) => n.length >= minLength && (schema.maxLength === undefined || n.length <= schema.maxLength));
      const choices = [{ weight: 3, arbitrary: free }];
      if (nasty.length > 0) choices.push({ weight: 2, arbitrary: fc.constantFrom(...nasty) });
      const known = options.samples?.[name];
      if (known && known.length > 0) choices.push({ weight: 6, arbitrary: fc.constantFrom(...known) });
      return fc.oneof(...choices);
    }
    case 'object':
      return validObject(schema, options);
    case 'array':
      return fc.array(fc.constant(null), { maxLength: 3 });
    default:
      return fc.constant(null);
  }
}

function validObject(schema: JsonSchema, options: ArbitraryOptions): fc.Arbitrary<JsonObject> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  if (properties.length === 0) return fc.constant(new JsonObject([]));
  const fields = properties.map(([key, sub]) => {
    const value = validValue(sub, key, options).map((v) => [key, v] as const);
    // An optional property is left out half the time (fast-check's default is one time in five).
    return required.has(key) ? value.map((entry) => [entry]) : fc.option(value, { nil: undefined, freq: 2 }).map((entry) => (entry ? [entry] : []));
  });
  return fc.tuple(...fields).map((parts) => new JsonObject(parts.flat()));
}

/** Values one step off what the schema accepts (most are invalid; the oracle decides). */
export function nearValue(schema: JsonSchema, name: string, options: ArbitraryOptions = {}): fc.Arbitrary<Json> {
  const wrongTypes: Json[] = [null, true, 'text', [], new JsonObject([]), 1.5, new RawNumber('1e400')];
  const choices: fc.Arbitrary<Json>[] = [fc.constantFrom(...wrongTypes)];
  if (schema.anyOf) {
    choices.push(fc.constantFrom<Json>('JPG', 'gif', '', 'png ', 0));
  } else if (schema.type === 'integer' || schema.type === 'number') {
    const edges: Json[] = [0.5, -0.0001, '5', ...HUGE.map((text) => new RawNumber(text))];
    if (schema.minimum !== undefined) edges.push(schema.minimum - 1, schema.minimum - 0.5);
    if (schema.maximum !== undefined) edges.push(schema.maximum + 1, schema.maximum + 0.5);
    choices.push(fc.constantFrom(...edges), fc.constantFrom(...edges));
  } else if (schema.type === 'string') {
    const edges: Json[] = [...NASTY_STRINGS, 5, false];
    if (schema.maxLength !== undefined && schema.maxLength < 20_000) edges.push('a'.repeat(schema.maxLength + 1), 'é'.repeat(schema.maxLength + 1));
    if (schema.minLength) edges.push('a'.repeat(schema.minLength - 1));
    if (schema.pattern) edges.push('-leading-dash', '.hidden', 'a'.repeat(65), 'has space', 'tab\there');
    choices.push(fc.constantFrom(...edges), fc.constantFrom(...edges), fc.string({ maxLength: 80, unit: 'binary' }));
    // Near misses of real ids (UNKNOWN_ASSET with did_you_mean): upper case, a letter short, one more.
    const known = options.samples?.[name];
    if (known && known.length > 0) {
      choices.push(
        fc
          .tuple(fc.constantFrom(...known), fc.integer({ min: 0, max: 2 }))
          .map(([id, how]) => (how === 0 ? id.toUpperCase() : how === 1 ? id.slice(1) : `${id}s`)),
      );
    }
  } else if (schema.type === 'boolean') {
    choices.push(fc.constantFrom<Json>('true', 'false', 1, 0, new JsonObject([])));
  } else if (schema.type === 'object') {
    choices.push(nearObject(schema, options));
  }
  return fc.oneof(...choices);
}

/** A valid object with one to three mutations, or args that are not an object at all. */
function nearObject(schema: JsonSchema, options: ArbitraryOptions): fc.Arbitrary<Json> {
  const properties = Object.entries(schema.properties ?? {});
  const required = schema.required ?? [];
  type Mutation = (entries: Array<readonly [string, Json]>) => fc.Arbitrary<Array<readonly [string, Json]>>;
  const mutations: Mutation[] = [
    // an unknown key, some of them with a special meaning in JS
    (entries) =>
      fc
        .tuple(fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 12 })), validValue({ type: 'integer' }, 'extra', options))
        .map(([k, v]) => [...entries, [k, v] as const]),
    // `__proto__` carrying every required key: the args must not inherit them
    (entries) => fc.constant([['__proto__', new JsonObject(entries)] as const]),
  ];
  if (required.length > 0) {
    mutations.push((entries) => fc.constantFrom(...required).map((key) => entries.filter(([k]) => k !== key)));
  }
  if (properties.length > 0) {
    mutations.push((entries) =>
      fc
        .constantFrom(...properties)
        .chain(([key, sub]) => nearValue(sub, key, options).map((bad) => [...entries.filter(([k]) => k !== key), [key, bad] as const])),
    );
    // duplicate keys: the last one wins (decisions §5 via JSON.parse), good first or bad first
    mutations.push((entries) =>
      fc
        .tuple(fc.constantFrom(...properties), fc.boolean())
        .chain(([[key, sub], badFirst]) =>
          fc
            .tuple(nearValue(sub, key, options), validValue(sub, key, options))
            .map(([bad, good]) => [...entries, [key, badFirst ? bad : good] as const, [key, badFirst ? good : bad] as const]),
        ),
    );
  }
  const mutated = validObject(schema, options).chain((object) =>
    fc.array(fc.constantFrom(...mutations), { minLength: 1, maxLength: 3 }).chain((chosen) => {
      let arb: fc.Arbitrary<Array<readonly [string, Json]>> = fc.constant([...object.entries]);
      for (const mutation of chosen) arb = arb.chain(mutation);
      return arb.map((entries) => new JsonObject(entries));
    }),
  );
  const notAnObject = fc.constantFrom<Json>(null, [], 'args', 0, true, new RawNumber('1e400'), [new JsonObject([])]);
  return fc.oneof({ weight: 6, arbitrary: mutated }, { weight: 1, arbitrary: notAnObject });
}

/** Valid args (about half) and near-valid args for one command. */
export function argsArbitrary(schema: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<Json | undefined> {
  const valid = validObject(schema, options);
  const noArgs = (schema.required ?? []).length === 0 ? [{ weight: 1, arbitrary: fc.constant(undefined) }] : [];
  return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 5, arbitrary: nearObject(schema, options) }, ...noArgs);
}

/** Requests across every command of /capabilities, plus an occasional unknown name. */
export function requestArbitrary(commands: readonly CommandDescriptor[], options: ArbitraryOptions = {}): fc.Arbitrary<FuzzRequest> {
  const known = fc.constantFrom(...commands).chain((command) => argsArbitrary(command.schema, options).map((args) => ({ name: command.name, args })));
  const unknown = fc.constantFrom('no_such_command', 'SPAWN', 'spawn ', '', '__proto__', 'constructor').map((name) => ({ name, args: undefined }));
  return fc.oneof({ weight: 30, arbitrary: known }, { weight: 1, arbitrary: unknown });
}

/** The answers a request may get, decided from the schema alone. */
export type Expectation =
  | { kind: 'not-an-object' } // 400 BAD_ARGS, command "" and args {}
  | { kind: 'unknown-command'; args: unknown } // 404 UNKNOWN_COMMAND
  | { kind: 'invalid'; args: unknown; why: string } // 400 BAD_ARGS echoing name and args
  | { kind: 'valid'; args: unknown }; // anything but a 5xx other than 503 BUSY and 504

/** The oracle: compiles every published schema with Ajv (draft 2020-12) once. */
export class Oracle {
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(commands: readonly CommandDescriptor[]) {
    const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false });
    for (const command of commands) this.#validators.set(command.name, ajv.compile(command.schema));
  }

  expect(request: FuzzRequest): Expectation {
    const parsed = JSON.parse(requestText(request)) as { args?: unknown };
    const args = parsed.args;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return { kind: 'not-an-object' };
    const validate = this.#validators.get(request.name);
    if (!validate) return { kind: 'unknown-command', args: args ?? {} };
    if (!validate(args ?? {})) return { kind: 'invalid', args: args ?? {}, why: `${validate.errors?.[0]?.instancePath} ${validate.errors?.[0]?.message}` };
    return { kind: 'valid', args: args ?? {} };
  }

  /** Problems with the answer to `request` (empty when it is right). */
  judge(request: FuzzRequest, reply: Reply): string[] {
    const expected = this.expect(request);
    const problems: string[] = [];
    const code = reply.body?.error?.code as string | undefined;
    const echo = expected.kind === 'not-an-object' ? { command: '', args: {} } : { command: request.name, args: expected.args };
    problems.push(...envelopeProblems(reply, reply.status === 200 ? undefined : echo));
    if (reply.status === 500 || code === 'GAME_CRASH') problems.push(`GAME_CRASH: ${reply.body?.error?.message}`);
    else if (reply.status >= 500 && reply.status !== 503 && reply.status !== 504) problems.push(`status ${reply.status}`);
    else if (reply.status === 503 && code !== 'BUSY') problems.push(`503 ${code}`);
    switch (expected.kind) {
      case 'not-an-object':
        if (reply.status !== 400 || code !== 'BAD_ARGS') problems.push(`args not an object: expected 400 BAD_ARGS, got ${reply.status} ${code}`);
        break;
      case 'unknown-command':
        if (reply.status !== 404 || code !== 'UNKNOWN_COMMAND') problems.push(`expected 404 UNKNOWN_COMMAND, got ${reply.status} ${code}`);
        break;
      case 'invalid':
        if (reply.status !== 400 || code !== 'BAD_ARGS') problems.push(`schema-invalid (${expected.why}): expected 400 BAD_ARGS, got ${reply.status} ${code}`);
        break;
      case 'valid':
        if (![200, 400, 422, 503, 504].includes(reply.status)) problems.push(`schema-valid: unexpected status ${reply.status} ${code}`);
        if (reply.status === 400 && !['BAD_ARGS', 'UNKNOWN_ASSET', 'OUT_OF_BOUNDS'].includes(code ?? '')) problems.push(`schema-valid: 400 ${code}`);
        break;
    }
    return problems;
  }
}

/** A short label for reports: command, expectation and answer. */
export function describe(request: FuzzRequest, reply: Reply): string {
  return `${request.name} ${requestText(request).slice(0, 300)} → ${reply.status} ${reply.body?.error?.code ?? ''} ${String(reply.body?.error?.message ?? '').slice(0, 200)}`;
}
