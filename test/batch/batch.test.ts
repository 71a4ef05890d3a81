// decisions §8 over real HTTP: a batch's answer, stop_on_error, an item whose game code throws, and
// every way a batch is refused before it takes a slot.
import t from 'tap';
import { fixture } from '../helpers/paths.ts';
import { startTestBridge, until } from '../helpers/bridge.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

const BATCH_COMMANDS = fixture('batch-commands.ts');
const mark = (tag: string) => ({ name: 'mark', args: { tag } });

t.test('results in order; stop_on_error skips after a failure; a throwing item is GAME_CRASH; one slot, released once', async (t) => {
  const b = await startTestBridge(t, { commandModules: [BATCH_COMMANDS] });
  const ran = await b.cmd('batch', { commands: [mark('a'), { name: 'get_ui_state' }, mark('b')] });
  t.equal(ran.status, 200);
  t.match(ran.body.result, { completed: 3, failed: 0, skipped: 0 });
  t.match(ran.body.result.results, [
    { ok: true, result: { tag: 'a' } },
    { ok: true, result: { window_active: false } },
    { ok: true, result: { tag: 'b' } },
  ]);

  const stopped = await b.cmd('batch', { commands: [mark('c'), { name: 'throw_item' }, mark('never')] });
  t.equal(stopped.status, 200, 'a batch that ran answers 200 whatever its items did');
  t.match(stopped.body.result, { completed: 1, failed: 1, skipped: 1 });
  const [first, crashed, skipped] = stopped.body.result.results;
  t.match(first, { ok: true, result: { tag: 'c' } });
  t.match(crashed, { ok: false, error: { code: 'GAME_CRASH', message: /TypeError/, exception: { type: 'TypeError', stack_top: /batch-commands/ } } });
  t.same(skipped, { ok: false, skipped: true });

  const onward = await b.cmd('batch', { stop_on_error: false, commands: [{ name: 'throw_item' }, mark('after')] });
  t.match(onward.body.result, { completed: 1, failed: 1, skipped: 0, results: [{ ok: false, error: { code: 'GAME_CRASH' } }, { ok: true }] });

  const tags = (await b.cmd('marks')).body.result.map((m: { tag: string }) => m.tag);
  t.same(tags, ['a', 'b', 'c', 'after'], 'a skipped item never ran');
  await until(() => b.bridge.stats().slotsInUse === 0, 5000, 'slots back');
  t.equal(b.bridge.stats().slotsInUse, 0, 'every slot came back, once');
  // 8 slots: 8 batches at once still all run, so no slot was lost or given back twice.
  const eight = await Promise.all(Array.from({ length: 8 }, (_, i) => b.cmd('batch', { commands: [mark(`p${i}`), { name: 'throw_item' }] })));
  t.same(
    eight.map((r) => r.status),
    Array(8).fill(200),
  );
  t.equal(b.bridge.stats().slotsInUse, 0);
  const frames = b.bridge.stats().frames;
  t.ok(frames.items >= frames.actions, `the frame statistics count items (${frames.items}) beside entries (${frames.actions})`);
});

t.test('refused whole with 400 BAD_ARGS, naming the item, before anything runs', async (t) => {
  const b = await startTestBridge(t, { commandModules: [BATCH_COMMANDS] });
  const cases: Array<[what: string, args: unknown, message: RegExp]> = [
    ['empty', { commands: [] }, /args\.commands must NOT have fewer than 1 items/],
    ['33 items', { commands: Array.from({ length: 33 }, (_, i) => mark(`x${i}`)) }, /args\.commands must NOT have more than 32 items/],
    ['nested batch', { commands: [mark('x'), { name: 'batch', args: { commands: [mark('y')] } }] }, /^commands\[1\]: a batch cannot contain a batch/],
    ['meta', { commands: [{ name: 'whoami' }] }, /^commands\[0\]: 'whoami' cannot be a batch item/],
    ['bus', { commands: [mark('x'), { name: 'send_message', args: { to: 'a', content: 'hi' } }] }, /^commands\[1\]: 'send_message' cannot be a batch item/],
    ['a pool command', { commands: [{ name: 'recv_events' }] }, /^commands\[0\]: 'recv_events' cannot be a batch item/],
    ['unknown name', { commands: [mark('x'), mark('y'), { name: 'mrak', args: { tag: 'z' } }] }, /^commands\[2\]: unknown command 'mrak'/],
    ['bad item args', { commands: [mark('x'), { name: 'mark', args: { tag: 5 } }] }, /^commands\[1\]: args\.tag must be string/],
    ['unknown item arg', { commands: [{ name: 'mark', args: { tag: 'x', extra: 1 } }] }, /^commands\[0\]: args has unknown property 'extra'/],
    ['unknown batch arg', { commands: [mark('x')], parallel: true }, /args has unknown property 'parallel'/],
  ];
  for (const [what, args, message] of cases) {
    const answer = await b.cmd('batch', args);
    t.equal(answer.status, 400, what);
    t.equal(answer.body.error.code, 'BAD_ARGS', what);
    t.match(answer.body.error.message, message, what);
    t.equal(answer.body.error.command, 'batch');
  }
  const typo = await b.cmd('batch', { commands: [{ name: 'get_ui_stat' }] });
  t.ok(typo.body.error.did_you_mean.includes('get_ui_state'), 'an unknown item name gets did_you_mean');
  t.same((await b.cmd('marks')).body.result, [], 'no refused batch ran any item');
});
