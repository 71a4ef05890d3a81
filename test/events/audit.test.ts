// decisions §13: a `command` record's args are a summary of at most 2 KiB, whatever was sent:
// strings cut at 128 characters, each cut a copy (audit-memory.test.ts), at most
// 32 members, 3 levels, then `truncated: true` and `args_bytes`; secret-looking keys redacted;
// send_message without its content; refusals not recorded at all.
import fc from 'fast-check';
import t from 'tap';
import { isAudited, shownName, summarizeArgs } from '../../src/events/audit.ts';
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
    nested: { a: { b: { c: 1 } } },
    list: Array.from({ length: 40 }, (_, i) => i),
    wide: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])),
    ['__proto__']: 'plain',
    ['k'.repeat(100)]: 1,
  }) as { args: Record<string, any>; truncated: boolean };
  t.equal(summary.args.token, '<redacted>');
  t.equal(summary.args.API_KEY, '<redacted>');
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
  const many = summarizeArgs('x', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]))) as { args: object };
  t.equal(Object.keys(many.args).length, 32, 'at most 32 keys at the top too');
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
    { numRuns: 2000 },
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
