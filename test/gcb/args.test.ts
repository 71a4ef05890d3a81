// key=value → args, typed by the command's JSON Schema.
import t from 'tap';
import { buildArgs, parseArgsObject, UsageError } from '../../src/cli/args.ts';

const schema = {
  type: 'object',
  properties: {
    entity_id: { type: 'string' },
    x: { type: 'integer' },
    adult: { type: 'boolean' },
    format: {
      anyOf: [
        { const: 'jpg', type: 'string' },
        { const: 'png', type: 'string' },
      ],
    },
    kingdom_id: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    in_rect: { type: 'object', properties: { x: { type: 'integer' }, w: { type: 'integer' } } },
  },
};

t.test('values take the type the schema gives them', async (t) => {
  t.same(buildArgs(['entity_id=123', 'x=-4', 'adult=true', 'format=png', 'kingdom_id=null'], {}, schema), {
    entity_id: '123',
    x: -4,
    adult: true,
    format: 'png',
    kingdom_id: null,
  });
  t.same(buildArgs(['kingdom_id=7'], {}, schema), { kingdom_id: 7 });
  t.same(buildArgs(['x=ten'], {}, schema), { x: 'ten' }, 'left for the bridge to refuse');
  t.same(buildArgs(['in_rect.x=1', 'in_rect.w=2'], {}, schema), { in_rect: { x: 1, w: 2 } });
  t.same(buildArgs(['in_rect={"x":1}'], {}, schema), { in_rect: { x: 1 } });
  t.same(buildArgs(['entity_id:=5'], {}, schema), { entity_id: 5 }, ':= is raw JSON, whatever the schema');
  t.same(buildArgs(['extra=1', 'other=hi', 'eq=a=b'], {}, schema), { extra: 1, other: 'hi', eq: 'a=b' }, 'no schema: JSON if it parses');
  t.same(buildArgs(['x=2'], { x: 1, entity_id: 'elf' }, schema), { x: 2, entity_id: 'elf' }, 'a pair wins over the base');
  t.same(buildArgs(['message=hello world'], {}), { message: 'hello world' });
});

t.test('malformed input is a usage error', async (t) => {
  t.throws(() => buildArgs(['novalue'], {}, schema), UsageError);
  t.throws(() => buildArgs(['x:={'], {}, schema), UsageError);
  t.throws(() => buildArgs(['__proto__.polluted=1'], {}, schema), UsageError);
  t.throws(() => buildArgs(['a..b=1'], {}, schema), UsageError);
  t.throws(() => parseArgsObject('[1]'), UsageError);
  t.throws(() => parseArgsObject('{'), UsageError);
  t.same(parseArgsObject('{"a":1}'), { a: 1 });
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
