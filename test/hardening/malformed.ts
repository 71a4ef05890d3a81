// Malformed POST /cmd requests, every one of which the bridge must answer 400 BAD_ARGS (decisions §5):
// truncated JSON, invalid UTF-8, 10,000-deep nesting, `__proto__` and `constructor` keys, huge
// numbers where a range applies, wrong or missing Content-Type, and bodies that are JSON but not a
// command request. Deterministic for a seed, so a failure names the body that caused it.
import fc from 'fast-check';

export interface MalformedRequest {
  kind: string;
  label: string;
  body: Uint8Array;
  /** null: no Content-Type header at all. */
  contentType: string | null;
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const JSON_TYPE = 'application/json';

/** Valid command requests on the sandbox: the material the mutations start from. */
const VALID_BODIES = [
  '{"name":"get_world_state"}',
  '{"name":"get_ui_state","args":{}}',
  '{"name":"get_tile","args":{"x":10,"y":12}}',
  '{"name":"spawn","args":{"entity_id":"sheep","x":30,"y":30,"count":2}}',
  '{"name":"paint_tile","args":{"x":5,"y":5,"tile_id":"grass","radius":1}}',
  '{"name":"query_actors","args":{"limit":10,"in_rect":{"x":0,"y":0,"w":8,"h":8}}}',
  '{"name":"send_message","args":{"to":"*","content":"héllo wörld ✓"}}',
  '{"name":"screenshot","args":{"max_dimension":64,"format":"png"}}',
];

/** Byte sequences that are not UTF-8: lone continuation, overlong, surrogate, truncated, out of range. */
const BAD_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
];

/** JSON that parses (or would) but is not a valid command request, or that names a range it breaks. */
const STRUCTURAL = [
  '',
  ' ',
  '\r\n',
  'null',
  'true',
  '0',
  '"get_world_state"',
  '[]',
  '[{"name":"get_world_state"}]',
  '{}',
  '{"args":{}}',
  '{"name":null}',
  '{"name":5}',
  '{"name":["get_world_state"]}',
  '{"name":{"toString":"get_world_state"}}',
  '{"name":"get_world_state","args":[]}',
  '{"name":"get_world_state","args":"{}"}',
  '{"name":"get_world_state","args":null}',
  '{"name":"get_world_state","args":0}',
  '{"name":"get_world_state","args":{"x":1}}',
  '{"name":"get_world_state",}',
  '{"name":"get_world_state"} trailing',
  '{"name":"get_world_state"}{"name":"pause"}',
  "{'name':'get_world_state'}",
  '{name:"get_world_state"}',
  '{"name":"get_world_state" /* c */}',
  '{"name":"get_world_state","args":{"x":NaN}}',
  '{"name":"get_tile","args":{"x":Infinity,"y":0}}',
  '{"name":"get_tile","args":{"x":0x10,"y":0}}',
  '{"name":"get_tile","args":{"x":+1,"y":0}}',
  '{"name":"get_tile","args":{"x":01,"y":0}}',
  '{"name":"get_tile","args":{"x":1.,"y":0}}',
  '{"name":"send_message","args":{"to":"*","content":"raw\nnewline"}}',
  '{"name":"send_message","args":{"to":"*","content":"bad \\x escape"}}',
  '{"name":"send_message","args":{"to":"*","content":"\\ud800 ok \\u12"}}',
  '\ufeff\ufeff{"name":"get_world_state"}',
];

/** Prototype-shaped keys: none of them may reach a prototype, fill a required key or pass a schema. */
const PROTOTYPE_KEYS = [
  '{"__proto__":{"name":"get_world_state"}}',
  '{"constructor":{"prototype":{"name":"get_world_state"}}}',
  '{"name":"get_world_state","args":{"__proto__":{"polluted":true}}}',
  '{"name":"get_world_state","args":{"constructor":{"prototype":{"polluted":true}}}}',
  '{"name":"get_world_state","args":{"__proto__":null}}',
  '{"name":"spawn","args":{"__proto__":{"entity_id":"sheep","x":1,"y":1}}}',
  '{"name":"get_tile","args":{"x":1,"__proto__":{"y":2}}}',
  '{"name":"get_tile","args":{"x":1,"y":2,"constructor":{"prototype":{"polluted":1}}}}',
  '{"name":"get_tile","args":{"x":1,"y":2,"prototype":{}}}',
  '{"name":"query_actors","args":{"in_rect":{"__proto__":{"x":0,"y":0,"w":1,"h":1}}}}',
  '{"name":"query_actors","args":{"in_rect":{"x":0,"y":0,"w":1,"h":1,"__proto__":{}}}}',
  '{"__proto__":{"polluted":true},"name":{"__proto__":"get_world_state"}}',
  '{"constructor":{"prototype":{"polluted":true}},"name":5}',
];

/** Names that are keys of Object.prototype: well-formed requests, but never commands (404). */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__', 'isPrototypeOf'];

/** Huge numbers in ranged fields, in `name` and as `args`. */
const HUGE_NUMBERS = ['1e400', '-1e400', '1e308', '9007199254740993', '123456789012345678901234567890', '1e999999', '-0.5e400', '4.9e-324'];
const HUGE_TEMPLATES = [
  '{"name":"spawn","args":{"entity_id":"sheep","x":1,"y":1,"count":N}}',
  '{"name":"invoke_power","args":{"power_id":"bomb","x":1,"y":1,"pulses":N}}',
  '{"name":"query_actors","args":{"limit":N}}',
  '{"name":"recv_messages","args":{"max":N}}',
  '{"name":"generate_world","args":{"zone_x":N,"zone_y":4}}',
  '{"name":"screenshot","args":{"quality":N}}',
  '{"name":"paint_tile","args":{"x":1,"y":1,"tile_id":"grass","radius":N}}',
  '{"name":N}',
  '{"name":"get_world_state","args":N}',
];

/** Content types that are not application/json (text/plain first: what a browser form can send). */
const WRONG_TYPES: Array<string | null> = [
  'text/plain',
  'text/plain;charset=UTF-8',
  null,
  '',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/json',
  'application/jsonx',
  'application/json-patch+json',
  'application/ld+json',
  'application/ json',
  'json',
  '*/*',
  'application/*',
  'application/xml',
];

function deep(depth: number, open: string, close: string, inner = '0'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

const kinds = {
  truncated: fc.tuple(fc.constantFrom(...VALID_BODIES), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true })).map(([text, at]) => {
    const bytes = utf8(text);
    // every proper prefix of an object's text is invalid JSON (the closing brace is missing);
    // cutting inside a multi-byte character also makes it invalid UTF-8
    const cut = Math.floor(at * bytes.length);
    return { label: `${text.slice(0, 40)} cut at ${cut}`, body: bytes.slice(0, cut), contentType: JSON_TYPE };
  }),
  'invalid-utf8': fc
    .tuple(fc.constantFrom(...VALID_BODIES), fc.constantFrom(...BAD_UTF8), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([text, bad, at]) => {
      // inside the name string, or anywhere at all
      const bytes = utf8(text);
      const position = at < 0.5 ? text.indexOf('"name":"') + 8 : Math.floor(at * bytes.length);
      const body = new Uint8Array([...bytes.slice(0, position), ...bad, ...bytes.slice(position)]);
      return { label: `${text.slice(0, 40)} with ${bad.map((b) => b.toString(16)).join(' ')} at ${position}`, body, contentType: JSON_TYPE };
    }),
  'deep-nesting': fc
    .tuple(fc.constantFrom(10_000, 65, 100, 1000, 5000), fc.constantFrom('[]', '{}', 'mixed'), fc.constantFrom('top', 'args', 'value'))
    .map(([depth, shape, where]) => {
      const nest = shape === '[]' ? deep(depth, '[', ']') : shape === '{}' ? deep(depth, '{"a":', '}', '0') : deep(depth / 2, '[{"a":', '}]', '0');
      const text =
        where === 'top' ? nest : where === 'args' ? `{"name":"get_world_state","args":{"deep":${nest}}}` : `{"name":"get_tile","args":{"x":1,"y":${nest}}}`;
      return { label: `${depth} deep ${shape} in ${where}`, body: utf8(text), contentType: JSON_TYPE };
    }),
  'prototype-keys': fc.constantFrom(...PROTOTYPE_KEYS).map((text) => ({ label: text, body: utf8(text), contentType: JSON_TYPE })),
  'huge-numbers': fc.tuple(fc.constantFrom(...HUGE_TEMPLATES), fc.constantFrom(...HUGE_NUMBERS)).map(([template, n]) => {
    const text = template.replace('N', n);
    return { label: text, body: utf8(text), contentType: JSON_TYPE };
  }),
  'content-type': fc
    .tuple(fc.constantFrom(...VALID_BODIES), fc.constantFrom(...WRONG_TYPES))
    .map(([text, type]) => ({ label: `${String(type)}: ${text.slice(0, 40)}`, body: utf8(text), contentType: type })),
  structural: fc.constantFrom(...STRUCTURAL).map((text) => ({ label: JSON.stringify(text), body: utf8(text), contentType: JSON_TYPE })),
};

/** `count` malformed requests, evenly over the kinds. */
export function malformedRequests(count: number, seed = 20_261_122): MalformedRequest[] {
  const names = Object.keys(kinds) as Array<keyof typeof kinds>;
  const arbitrary = fc.constantFrom(...names).chain((kind) => kinds[kind].map((request) => ({ kind, ...request })));
  const sampled = fc.sample(arbitrary, { seed, numRuns: count });
  // Every kind at least once, and the spec's named cases exactly as the issue words them.
  const fixed: MalformedRequest[] = [
    { kind: 'deep-nesting', label: '10,000-deep arrays', body: utf8(deep(10_000, '[', ']')), contentType: JSON_TYPE },
    {
      kind: 'deep-nesting',
      label: '10,000-deep objects in args',
      body: utf8(`{"name":"get_world_state","args":${deep(10_000, '{"a":', '}')}}`),
      contentType: JSON_TYPE,
    },
    { kind: 'content-type', label: 'text/plain', body: utf8(VALID_BODIES[0]!), contentType: 'text/plain' },
    { kind: 'invalid-utf8', label: 'lone 0xff', body: new Uint8Array([0x7b, 0xff, 0x7d]), contentType: JSON_TYPE },
  ];
  return [...fixed, ...sampled].slice(0, count);
}
