// decisions §13: a `command` record's args are a summary of at most 2 KiB, whatever was sent:
// strings cut at 128 characters, each cut a copy (audit-memory.test.ts), at most
// 32 members, 3 levels, then `truncated: true` and `args_bytes`; secret-looking keys redacted;
// send_message without its content; refusals not recorded at all.
import fc from 'fast-check';
import t from 'tap';
import { commandRecord, isAudited, shownName, summarizeArgs } from '../../src/events/audit.ts';
import { LIMITS } from '../../src/limits.ts';

const SECRET_LOOKING = /token|secret|password|passwd|authorization|api[_-]?key|cookie/i;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

t.test('small args are kept as sent, with no truncated flag', async (t) => {
  const args = { x: 3, y: -1.5, name: 'wolf', on: true, off: null, list: [1, 'a', { deep: 'ok' }, []] };
  const summary = summarizeArgs('spawn', args);
  t.same(summary, { args });
  t.notOk('truncated' in summary || 'args_bytes' in summary);
  t.same(summarizeArgs('whoami', {}), { args: {} });
});

t.test('long strings are cut at 128 characters; the record says truncated and the size as sent', async (t) => {
  const args = { bytes_b64: 'A'.repeat(5000), short: 'b'.repeat(128) };
  const summary = summarizeArgs('paint_tile', args) as { args: Record<string, string>; truncated: boolean; args_bytes: number };
  t.equal(summary.args.bytes_b64, 'A'.repeat(127) + '…', '127 characters and the cut mark: 128 in all');
  t.equal(summary.args.short, 'b'.repeat(128), 'a string of exactly 128 characters is whole');
  t.equal(summary.truncated, true);
  t.equal(summary.args_bytes, bytesOf(args));
  // A cut never splits a surrogate pair.
  const emoji = summarizeArgs('x', { s: 'a'.repeat(126) + '😀'.repeat(10) }) as { args: { s: string } };
  t.equal(emoji.args.s, 'a'.repeat(126) + '…');
  t.equal(Buffer.from(emoji.args.s).toString(), emoji.args.s, 'no lone surrogate');
});

t.test('at most 32 members, 3 levels; secret-looking keys redacted; __proto__ stays a plain key', async (t) => {
  const summary = summarizeArgs('x', {
    token: 'short-but-secret',
    API_KEY: 'k',
    apikey: 'k',
    'api-key': 'k',
    nested: { a: { b: { c: 1 } } },
    list: Array.from({ length: 40 }, (_, i) => i),
    wide: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])),
    ['__proto__']: 'plain',
    ['k'.repeat(100)]: 1,
  }) as { args: Record<string, any>; truncated: boolean };
  t.equal(summary.args.token, '<redacted>');
  t.equal(summary.args.API_KEY, '<redacted>');
  t.same([summary.args.apikey, summary.args['api-key']], ['<redacted>', '<redacted>'], 'with or without a separator');
  t.same(summary.args.nested.a, { b: '…' }, 'a list or object on the fourth level becomes the cut mark');
  t.same(
    summary.args.list,
    Array.from({ length: 32 }, (_, i) => i),
  );
  t.equal(Object.keys(summary.args.wide).length, 32);
  t.equal(summary.args['__proto__'], 'plain');
  t.equal(Object.getPrototypeOf({}), Object.prototype, 'no prototype touched');
  t.ok(Object.keys(summary.args).includes('k'.repeat(63) + '…'), 'a long key is cut at 64');
  t.equal(summary.truncated, true);
  const many = summarizeArgs('x', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]))) as { args: object; truncated?: true };
  t.equal(Object.keys(many.args).length, 32, 'at most 32 keys at the top too');
  t.equal(many.truncated, true, 'a member left out is a cut too');
});

t.test('huge, wide and deep args: the summary stays within 2 KiB', async (t) => {
  const wideAndDeep = (depth: number): unknown =>
    depth === 0 ? 'x'.repeat(200) : Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key-${i}`, [wideAndDeep(depth - 1), 'é'.repeat(50)]]));
  const cases: Record<string, unknown> = {
    'one 1 MB string': { blob: 'x'.repeat(1_000_000) },
    'a 1 MB key': { ['k'.repeat(1_000_000)]: 1 },
    '40 wide, 6 deep': wideAndDeep(3),
    'many long unicode strings': Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`${i}`, '😀'.repeat(100)])),
    'control characters (6 bytes each as JSON)': Array.from({ length: 32 }, () => '\u0001'.repeat(128)),
    'lone surrogates': Array.from({ length: 32 }, () => '\ud800'.repeat(128)),
    'a 100 000-item list': Array.from({ length: 100_000 }, (_, i) => i * 1.0000001),
    'nested 60 levels': JSON.parse('['.repeat(60) + ']'.repeat(60)),
  };
  for (const [what, args] of Object.entries(cases)) {
    const summary = summarizeArgs('x', args);
    t.ok(bytesOf(summary) <= LIMITS.auditArgsMaxBytes, `${what}: ${bytesOf(summary)} bytes`);
    t.equal(summary.truncated, true, `${what}: truncated`);
    t.equal(summary.args_bytes, bytesOf(args), `${what}: args_bytes is the size as sent`);
  }
});

t.test('fuzz: no input makes a summary over 2 KiB, and a summary is truncated or the args themselves', async (t) => {
  const big = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.string({ unit: 'grapheme', maxLength: 300 }),
    fc.constantFrom('"', '\\', '\u0000', '\ud800', '😀').map((c) => c.repeat(200)),
  );
  const value = fc.letrec((tie) => ({
    leaf: fc.oneof(big, fc.double(), fc.integer(), fc.boolean(), fc.constant(null)),
    list: fc.array(tie('node'), { maxLength: 40 }),
    object: fc.dictionary(fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('__proto__', 'token', 'constructor')), tie('node'), { maxKeys: 40 }),
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('list'), tie('object')),
  })).node;
  const args = fc.oneof(value, fc.jsonValue(), fc.anything({ maxDepth: 6, maxKeys: 40, withNullPrototype: true, withSparseArray: true }));
  const name = fc.constantFrom('spawn', 'send_message', 'batch');
  fc.assert(
    fc.property(name, args, (name, args) => {
      const summary = summarizeArgs(name, args);
      if (bytesOf(summary) > LIMITS.auditArgsMaxBytes) return false;
      // Untruncated, and nothing redacted or left out, the summary says what JSON says of the args.
      const json = JSON.stringify(args) ?? 'null';
      if (summary.truncated || name === 'send_message' || SECRET_LOOKING.test(json)) return true;
      return JSON.stringify(summary.args) === json;
    }),
    { numRuns: 500 },
  );
  t.pass('2000 inputs');
});

t.test('send_message: to, kind and the content size, never the content', async (t) => {
  const content = 'meet me at the river at dawn, come alone';
  const summary = summarizeArgs('send_message', { to: 'ares', content, kind: 'text' });
  t.same(summary, { args: { to: 'ares', kind: 'text', content_bytes: Buffer.byteLength(content) } });
  t.notOk(JSON.stringify(summary).includes('river'));
  const big = summarizeArgs('send_message', { to: '*', content: 'é'.repeat(2000) });
  t.same(big.args, { to: '*', content_bytes: 4000 }, 'content_bytes in UTF-8 bytes');
  t.notOk('truncated' in big, 'leaving the content out is the rule, not a cut');
});

t.test('a refusal is not audited; what ran, or failed in running, is', async (t) => {
  for (const status of [400, 401, 403, 404, 409, 503]) t.equal(isAudited(status), false, `${status}`);
  for (const status of [200, 422, 500, 504]) t.equal(isAudited(status), true, `${status}`);
});

t.test('names are bounded', async (t) => {
  t.equal(shownName('spawn'), 'spawn');
  t.equal(shownName('n'.repeat(1000)), 'n'.repeat(63) + '…');
});

/** An object whose JSON is exactly `target` bytes: plain padding members, then `key: value` last. */
function filledObject(target: number, key: string, value: unknown): Record<string, unknown> {
  const last = bytesOf({ [key]: value }) - 2; // "key":value
  const room = target - 2 - last; // {} and the last member
  const count = Math.ceil(room / 137); // "pNN":"<up to 128>", = length + 9
  const out: Record<string, unknown> = {};
  let left = room - 9 * count;
  for (let i = 0; i < count; i++) {
    const length = Math.ceil(left / (count - i));
    out[`p${String(i).padStart(2, '0')}`] = 'x'.repeat(length);
    left -= length;
  }
  out[key] = value;
  if (bytesOf(out) !== target) throw new Error(`filledObject: ${bytesOf(out)} bytes, not ${target}`);
  return out;
}

/** A list whose JSON is exactly `target` bytes: plain padding strings, then `value` last. */
function filledList(target: number, value: unknown): unknown[] {
  const room = target - 2 - bytesOf(value); // [] and the last item
  const count = Math.ceil(room / 131); // "<up to 128>", = length + 3
  const out: unknown[] = [];
  let left = room - 3 * count;
  for (let i = 0; i < count; i++) {
    const length = Math.ceil(left / (count - i));
    out.push('x'.repeat(length));
    left -= length;
  }
  out.push(value);
  if (bytesOf(out) !== target) throw new Error(`filledList: ${bytesOf(out)} bytes, not ${target}`);
  return out;
}

// `{"args":` + `,"truncated":true,"args_bytes":` + 16 digits + `}`: what a summary adds to its args.
const ARGS_ROOM = LIMITS.auditArgsMaxBytes - 56;

t.test('the summary holds exactly what fits: args of up to 1992 bytes whole, one byte more cut', async (t) => {
  const values: Record<string, unknown> = {
    'a plain string': 'plain',
    'an empty string': '',
    'a quote': 'q"uote',
    'a backslash': 'back\\slash',
    'a two-byte character': 'é',
    'a control character': '\u0001',
    'a surrogate pair': '😀',
    'a lone surrogate': '\udc00',
    'DEL (not escaped)': '\u007f',
    'a string of 128 characters': 'y'.repeat(128),
    'an integer': 12345,
    'a negative fraction': -1.5,
    'an exponent': 1e21,
    true: true,
    false: false,
    null: null,
    'an empty list': [],
    'an empty object': {},
    'a nested list': [1, [2, 'é'], {}],
    'a nested object': { a: { b: 'c"' }, d: [true, null] },
  };
  for (const [what, value] of Object.entries(values)) {
    for (const [form, make] of [
      ['object', (n: number) => filledObject(n, 'z', value)],
      ['list', (n: number) => filledList(n, value)],
    ] as const) {
      const whole = make(ARGS_ROOM);
      t.same(summarizeArgs('x', whole), { args: whole }, `${what}, last in an ${form} of ${ARGS_ROOM} bytes: whole`);
      const over = make(ARGS_ROOM + 1);
      const summary = summarizeArgs('x', over);
      t.equal(summary.truncated, true, `${what}, last in an ${form} of ${ARGS_ROOM + 1} bytes: cut`);
      t.equal(summary.args_bytes, ARGS_ROOM + 1);
      t.ok(bytesOf(summary.args) <= ARGS_ROOM, `${what}: the cut args fit (${bytesOf(summary.args)} bytes)`);
      t.ok(bytesOf(summary) <= LIMITS.auditArgsMaxBytes);
      if (value === null || typeof value !== 'object') {
        const kept = summary.args as Record<string, unknown> | unknown[];
        t.notOk(Array.isArray(kept) ? kept.length === (over as unknown[]).length : 'z' in kept, `${what}: the member that did not fit is left out`);
      }
    }
  }
  const secret = filledObject(ARGS_ROOM, 'token', 'abcdefghij'); // as long as '<redacted>'
  t.same(summarizeArgs('x', secret), { args: { ...secret, token: '<redacted>' } }, 'a redacted member counts as its redacted form');
  const secretOver = summarizeArgs('x', filledObject(ARGS_ROOM + 1, 'token', 'abcdefghij')) as { args: object; truncated: boolean };
  t.notOk('token' in secretOver.args, 'one byte over: the redacted member is left out');
  t.equal(secretOver.truncated, true);
  const longSecret = filledObject(ARGS_ROOM + 1, 'token', 'abcdefghijk');
  t.same(summarizeArgs('x', longSecret), { args: { ...longSecret, token: '<redacted>' } }, 'its size is the redacted form’s, not the secret’s');
});

t.test('members, keys and names at their bounds', async (t) => {
  const list32 = Array.from({ length: 32 }, (_, i) => i);
  t.same(summarizeArgs('x', { list32 }), { args: { list32 } }, '32 items: whole');
  t.same(summarizeArgs('x', { list: [...list32, 32] }), { args: { list: list32 }, truncated: true, args_bytes: bytesOf({ list: [...list32, 32] }) }, '33: cut');
  const object32 = Object.fromEntries(list32.map((i) => [`k${i}`, i]));
  t.same(summarizeArgs('x', object32), { args: object32 }, '32 members: whole');
  t.same(summarizeArgs('x', { ...object32, k32: 32 }).args, object32, '33: the 33rd left out');
  const key64 = 'k'.repeat(64);
  t.same(summarizeArgs('x', { [key64]: 1 }), { args: { [key64]: 1 } }, 'a key of 64 characters: whole');
  const key65 = 'k'.repeat(65);
  t.same(summarizeArgs('x', { [key65]: 1 }), { args: { ['k'.repeat(63) + '…']: 1 }, truncated: true, args_bytes: bytesOf({ [key65]: 1 }) }, '65: cut');
  const twins = summarizeArgs('x', { ['t'.repeat(70) + 'a']: 1, ['t'.repeat(70) + 'b']: 2, after: 3 });
  t.same(twins.args, { ['t'.repeat(63) + '…']: 1, after: 3 }, 'two keys cut to the same text: the first is kept, the second left out');
  t.equal(twins.truncated, true);
  t.equal(shownName('n'.repeat(64)), 'n'.repeat(64), 'a name of 64 characters: whole');
  t.equal(shownName('n'.repeat(65)), 'n'.repeat(63) + '…');
});

t.test('what JSON leaves out or turns into null, the summary does too', async (t) => {
  const inherited = Object.assign(Object.create({ inherited: 1 }) as Record<string, unknown>, { own: 2 });
  t.same(summarizeArgs('x', inherited), { args: { own: 2 } }, 'inherited members are not the args’');
  const odd = { u: undefined, f: () => 1, s: Symbol('s'), kept: 1 };
  t.same(summarizeArgs('x', odd), { args: { kept: 1 } }, 'undefined, functions and symbols: left out of an object');
  t.same(summarizeArgs('x', [undefined, () => 1, Symbol('s'), 1n]), { args: [null, null, null, null] }, 'and null in a list');
  t.same(
    summarizeArgs('x', { n: 1n, long: 'x'.repeat(200) }),
    { args: { n: null, long: 'x'.repeat(127) + '…' }, truncated: true, args_bytes: 0 },
    'args JSON cannot hold: size 0',
  );
  t.equal(summarizeArgs('x', { toJSON: () => undefined, long: 'x'.repeat(200) }).args_bytes, 0, 'args whose JSON is nothing: size 0');
});

t.test('a cut never splits a surrogate pair, and keeps every other character as it is', async (t) => {
  const cutOf = (text: string) => (summarizeArgs('x', { s: text }).args as { s: string }).s;
  t.equal(cutOf('a'.repeat(126) + '\u{10000}' + 'b'.repeat(10)), 'a'.repeat(126) + '…', 'high surrogate U+D800 at the cut: the pair goes');
  t.equal(cutOf('a'.repeat(126) + '\u{10FFFF}' + 'b'.repeat(10)), 'a'.repeat(126) + '…', 'high surrogate U+DBFF');
  t.equal(cutOf('a'.repeat(126) + '\ud7ff' + 'b'.repeat(10)), 'a'.repeat(126) + '\ud7ff…', 'U+D7FF is no surrogate');
  t.equal(cutOf('a'.repeat(126) + '\udc00' + 'b'.repeat(10)), 'a'.repeat(126) + '\udc00…', 'a low surrogate is not the start of a pair');
  t.equal(
    cutOf('a'.repeat(10) + '\udc00é😀' + 'b'.repeat(200)),
    'a'.repeat(10) + '\udc00é😀' + 'b'.repeat(113) + '…',
    'lone surrogates and others, as they were',
  );
});

t.test('send_message: what is missing stays missing; args that are not an object are summarised as sent', async (t) => {
  t.same(summarizeArgs('send_message', { to: 'ares' }), { args: { to: 'ares' } }, 'no content: no content_bytes');
  t.same(summarizeArgs('send_message', { content: 'hi' }), { args: { content_bytes: 2 } });
  t.same(summarizeArgs('send_message', { to: 'ares', content: 42 }), { args: { to: 'ares' } }, 'a content that is not text has no size');
  t.same(summarizeArgs('send_message', null), { args: null });
  t.same(summarizeArgs('send_message', ['ares']), { args: ['ares'] });
  t.same(summarizeArgs('send_message', 'ares'), { args: 'ares' });
});

t.test('the record as JSON text is byte for byte what JSON.stringify makes of the same record as an object', async (t) => {
  // The object form the text stands for: agent, name, args (with truncated and args_bytes when cut), ok, code, status, ms, place.
  const asObject = (
    agent: string,
    request: { name: string; args: unknown } | undefined,
    status: number,
    code: string | null,
    ms: number,
    place?: { tick: number; order: number },
  ) => {
    const record: Record<string, unknown> = { agent, name: request ? shownName(request.name) : null, args: null };
    if (request) Object.assign(record, summarizeArgs(request.name, request.args));
    Object.assign(record, { ok: status === 200, code, status, ms });
    if (place) record.place = place;
    return JSON.stringify(record);
  };
  const textOf = (...[agent, request, status, code, ms, place]: Parameters<typeof asObject>) =>
    `{${commandRecord(agent, request, { status, code }, ms, place).slice(1)}}`;
  t.equal(textOf('legacy', { name: 'whoami', args: {} }, 200, null, 0.42), asObject('legacy', { name: 'whoami', args: {} }, 200, null, 0.42));
  t.equal(
    textOf('athena', { name: 'spawn', args: { x: 1 } }, 422, 'GAME_ERROR', 12, { tick: 7, order: 2 }),
    asObject('athena', { name: 'spawn', args: { x: 1 } }, 422, 'GAME_ERROR', 12, { tick: 7, order: 2 }),
    'a place, a failure',
  );
  t.equal(textOf('ares', undefined, 500, 'INTERNAL', 1.5), asObject('ares', undefined, 500, 'INTERNAL', 1.5), 'no body read: name and args null');
  const long = { name: 'n'.repeat(100), args: { s: 'x'.repeat(300) } };
  t.equal(textOf('ares', long, 504, 'TIMEOUT', 5000.01), asObject('ares', long, 504, 'TIMEOUT', 5000.01), 'a cut name and truncated args');
  // Names and agents that need an escape: quotes, backslashes, control characters, lone and paired surrogates.
  const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) });
  fc.assert(
    fc.property(
      anyUnits,
      anyUnits,
      fc.jsonValue(),
      fc.constantFrom(200, 422, 500, 504),
      fc.double({ min: 0, max: 1e6, noNaN: true }),
      fc.option(fc.record({ tick: fc.nat(), order: fc.nat() }), { nil: undefined }),
      (agent, name, args, status, ms, place) => {
        const code = status === 200 ? null : 'GAME_ERROR';
        return textOf(agent, { name, args }, status, code, ms, place) === asObject(agent, { name, args }, status, code, ms, place);
      },
    ),
  );
});
