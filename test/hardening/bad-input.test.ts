// Bad input: 1,000 malformed bodies (truncated, invalid UTF-8, 10,000-deep nesting, `__proto__`
// and `constructor` keys, huge numbers, wrong Content-Type, text/plain) are all 400 BAD_ARGS, with
// zero 500s, built-in prototypes untouched and the slots back to 0. Duplicate keys: the last wins.
import t from 'tap';
import { startSandbox } from '../commands/helpers.ts';
import { envelopeProblems } from './envelope.ts';
import { inParallel, postRaw, prototypeFingerprint } from './helpers.ts';
import { malformedRequests, PROTOTYPE_NAMES } from './malformed.ts';

t.setTimeout(120_000);

t.test('bad input', async (t) => {
  const b = await startSandbox(t);
  const target = { url: b.bridge.url, token: b.token };
  const before = prototypeFingerprint();
  const probe = {} as Record<string, unknown>;

  await t.test('1,000 malformed bodies: every one 400 BAD_ARGS, zero 500s', async (t) => {
    const requests = malformedRequests(1000);
    t.equal(requests.length, 1000);
    const byKind = new Map<string, number>();
    const wrong: string[] = [];
    let fiveHundreds = 0;
    await inParallel(requests, 16, async (request) => {
      const reply = await postRaw(target, request.body, { contentType: request.contentType });
      byKind.set(request.kind, (byKind.get(request.kind) ?? 0) + 1);
      if (reply.status >= 500) fiveHundreds++;
      const problems = envelopeProblems(reply);
      if (reply.status !== 400 || reply.body?.error?.code !== 'BAD_ARGS') problems.push(`answered ${reply.status} ${reply.body?.error?.code}`);
      if (problems.length) wrong.push(`${request.kind} ${request.label.slice(0, 120)}: ${problems.join('; ')} ${reply.text.slice(0, 160)}`);
    });
    t.comment(`bodies by kind: ${JSON.stringify(Object.fromEntries(byKind))}`);
    t.equal(byKind.size, 7, 'every kind of malformed body was sent');
    t.equal(fiveHundreds, 0, 'zero 500s');
    t.same(wrong.slice(0, 10), [], `every one 400 BAD_ARGS in a valid envelope (${wrong.length} not)`);
  });

  await t.test('Object.prototype untouched and slots back to 0', async (t) => {
    t.equal(prototypeFingerprint(), before, 'Object, Array, Function and String prototypes unchanged');
    t.equal(probe.polluted, undefined);
    t.equal(b.bridge.stats().slotsInUse, 0, 'slots back to 0');
    t.equal(b.bridge.stats().waiting, 0);
    t.equal((await b.cmd('get_ui_state')).status, 200, 'and the bridge serves');
  });

  await t.test('duplicate keys: the last one wins, as documented', async (t) => {
    const cases: Array<[string, number, string | null, (body: any) => void]> = [
      ['{"name":"no_such_command","name":"get_ui_state"}', 200, null, () => {}],
      ['{"name":"get_ui_state","name":"no_such_command"}', 404, 'UNKNOWN_COMMAND', (body) => t.equal(body.error.command, 'no_such_command')],
      ['{"name":"get_tile","args":{"x":"a","y":4,"x":3}}', 200, null, (body) => t.match(body.result, { x: 3, y: 4 })],
      [
        '{"name":"get_tile","args":{"x":3,"y":4,"x":"a"}}',
        400,
        'BAD_ARGS',
        (body) => t.same(body.error.args, { x: 'a', y: 4 }, 'error.args shows the value that won'),
      ],
      ['{"name":"get_world_state","args":{"bad":1},"args":{}}', 200, null, () => {}],
      ['{"name":"get_world_state","args":{},"args":[]}', 400, 'BAD_ARGS', () => {}],
      ['{"name":"get_tile","args":{"x":1,"y":2},"args":{"x":-5000,"y":0}}', 400, 'OUT_OF_BOUNDS', (body) => t.same(body.error.args, { x: -5000, y: 0 })],
    ];
    for (const [text, status, code, check] of cases) {
      const reply = await postRaw(target, text);
      t.equal(reply.status, status, text);
      t.equal(reply.body?.error?.code ?? null, code, text);
      t.same(envelopeProblems(reply), [], 'a valid envelope');
      check(reply.body);
    }
  });

  await t.test('names that are keys of Object.prototype are not commands: 404 UNKNOWN_COMMAND', async (t) => {
    for (const name of PROTOTYPE_NAMES) {
      const reply = await postRaw(target, JSON.stringify({ name, args: {} }));
      t.equal(reply.status, 404, name);
      t.match(reply.body?.error, { code: 'UNKNOWN_COMMAND', command: name });
    }
  });

  await t.test('huge numbers where no range applies (coordinates, ids, offsets): a 4xx or a 200, never a 5xx', async (t) => {
    const texts = [
      '{"name":"get_tile","args":{"x":1e400,"y":0}}',
      '{"name":"get_tile","args":{"x":0,"y":-1e400}}',
      '{"name":"get_tile","args":{"x":9007199254740993,"y":0}}',
      '{"name":"spawn","args":{"entity_id":"sheep","x":1e400,"y":1}}',
      '{"name":"paint_tile","args":{"x":-1e400,"y":1,"tile_id":"grass"}}',
      '{"name":"invoke_power","args":{"power_id":"bomb","x":1e400,"y":1}}',
      '{"name":"invoke_power","args":{"power_id":"bomb","x":1,"y":1,"pulses":3,"x2":1e400,"y2":1}}',
      '{"name":"query_actors","args":{"in_rect":{"x":1e400,"y":0,"w":1e400,"h":1}}}',
      '{"name":"query_actors","args":{"offset":1e400}}',
      '{"name":"query_actors","args":{"kingdom_id":-1e400}}',
      '{"name":"list_cities","args":{"kingdom_id":1e400}}',
      '{"name":"recv_messages","args":{"since_seq":1e400}}',
    ];
    for (const text of texts) {
      const reply = await postRaw(target, text);
      t.ok(reply.status < 500, `${text} → ${reply.status} ${reply.body?.error?.code ?? ''}`);
      t.same(envelopeProblems(reply), [], 'a valid envelope');
    }
    t.equal(b.bridge.stats().slotsInUse, 0);
  });
});
