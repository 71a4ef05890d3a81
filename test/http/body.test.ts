import t from 'tap';
import { exceedsDepth, isJsonContentType, parseCommandBody } from '../../src/http/body.ts';

const enc = (s: string) => new TextEncoder().encode(s);

t.test('content types', async (t) => {
  t.ok(isJsonContentType('application/json'));
  t.ok(isJsonContentType('application/json; charset=utf-8'));
  t.ok(isJsonContentType('Application/JSON'));
  for (const bad of [undefined, 'text/plain', 'application/jsonx', 'application/x-www-form-urlencoded', '']) t.notOk(isJsonContentType(bad), String(bad));
});

t.test('valid bodies', async (t) => {
  t.same(parseCommandBody(enc('{"name":"pause"}')), { name: 'pause', args: {} });
  t.same(parseCommandBody(enc('{"name":"spawn","args":{"x":1}}')), { name: 'spawn', args: { x: 1 } });
  t.same(parseCommandBody(enc('{"name":"a","name":"b"}')), { name: 'b', args: {} }, 'duplicate keys: the last wins');
});

t.test('every malformed body is BAD_ARGS', async (t) => {
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /not valid UTF-8/],
    ['truncated', enc('{"name":"pau'), /not valid JSON/],
    ['empty', enc(''), /not valid JSON/],
    ['array', enc('[1,2]'), /must be a JSON object/],
    ['null', enc('null'), /must be a JSON object/],
    ['missing name', enc('{"args":{}}'), /"name" must be a string/],
    ['numeric name', enc('{"name":5}'), /"name" must be a string/],
    ['args array', enc('{"name":"x","args":[]}'), /"args" must be a JSON object/],
    ['args string', enc('{"name":"x","args":"s"}'), /"args" must be a JSON object/],
    ['10,000 deep', enc('['.repeat(10_000) + ']'.repeat(10_000)), /deeper than 64/],
  ];
  for (const [what, bytes, message] of cases) {
    const result = parseCommandBody(bytes);
    t.type(result, Error, what);
    t.match(result, { code: 'BAD_ARGS', message }, what);
  }
});

t.test('__proto__ keys stay own properties and touch no prototype', async (t) => {
  const result = parseCommandBody(enc('{"name":"x","args":{"__proto__":{"polluted":true},"constructor":{"prototype":{"p":1}}}}'));
  t.notOk(result instanceof Error);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal(Object.getPrototypeOf((result as { args: object }).args), Object.prototype);
});

t.test('depth counting ignores brackets inside strings', async (t) => {
  const deeper = (text: string) => exceedsDepth(enc(text), 64);
  t.notOk(deeper(`{"a":"${'['.repeat(100)}"}`));
  t.notOk(deeper(`{"a":"\\"${'['.repeat(100)}"}`), 'an escaped quote does not end the string');
  t.ok(deeper(`{"a":"\\\\",${'['.repeat(64)}${']'.repeat(64)}}`), 'an escaped backslash does not escape the quote after it');
  t.ok(deeper(`{"a":${'['.repeat(64)}${']'.repeat(64)}}`));
  t.notOk(deeper('['.repeat(64) + ']'.repeat(64)));
  t.notOk(deeper(`["é${'['.repeat(100)}", "漢字${'{'.repeat(100)}"]`), 'multi-byte characters inside a string');
  t.ok(deeper(`["é漢",${'['.repeat(64)}${']'.repeat(64)}]`), 'and before the brackets that count');
  t.notOk(deeper(`{"a":[],"b":{},${'['.repeat(63)}${']'.repeat(63)}}`), 'closed brackets give their level back');
});
