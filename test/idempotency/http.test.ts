// decisions §8 over real HTTP: Idempotency-Key on POST /cmd. Replays, a reused key for another
// request, the key's syntax, answers that are not kept, keys per credential.
import t from 'tap';
import type { Mark } from '../fixtures/batch-commands.ts';
import { fixture } from '../helpers/paths.ts';
import { startTestBridge, type TestBridge } from '../helpers/bridge.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

const BATCH_COMMANDS = fixture('batch-commands.ts');
const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
const tags = async (b: TestBridge) => ((await b.cmd('marks')).body.result as Mark[]).map((m) => m.tag);

t.test('the same key and request replays the kept answer; another request under it is 400; a bad key is 400', async (t) => {
  const b = await startTestBridge(t, { commandModules: [BATCH_COMMANDS] });
  const first = await b.cmd('mark', { tag: 'once' }, keyed('key-1'));
  t.equal(first.status, 200);
  t.equal(first.headers.get('idempotent-replayed'), null);
  const again = await b.cmd('mark', { tag: 'once' }, keyed('key-1'));
  t.equal(again.status, 200);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.same(again.body, first.body, 'the very answer, tick included');
  t.same(await tags(b), ['once'], 'ran once');
  t.equal(b.bridge.stats().idempotentReplays, 1);

  const other = await b.cmd('mark', { tag: 'twice' }, keyed('key-1'));
  t.equal(other.status, 400);
  t.match(other.body.error, { code: 'BAD_ARGS', message: /Idempotency-Key 'key-1' was already used .* for another request/ });
  const crash = await b.cmd('throw_item', {}, keyed('key-crash'));
  t.equal(crash.status, 500);
  const crashAgain = await b.cmd('throw_item', {}, keyed('key-crash'));
  t.equal(crashAgain.headers.get('idempotent-replayed'), 'true', 'a 500 reached the game: kept');
  t.same(crashAgain.body, crash.body);

  for (const [key, why] of [
    ['two words', /without spaces/],
    ['k'.repeat(300), /1 to 255 printable ASCII.*300 characters/],
  ] as const) {
    const bad = await b.cmd('mark', { tag: 'never' }, keyed(key));
    t.equal(bad.status, 400);
    t.match(bad.body.error, { code: 'BAD_ARGS', message: why });
  }
  const unknown = await b.cmd('mrak', {}, keyed('key-404'));
  t.equal(unknown.status, 404);
  t.equal((await b.cmd('mark', { tag: 'x' }, keyed('key-404'))).status, 200, 'a 404 is not kept: the key is free for the real request');
  t.same(await tags(b), ['once', 'x']);
});

t.test('keys are per credential: two agents may use one key for different requests', async (t) => {
  const { b } = await startAgents(t, { agents: [agent('zeus', 'god'), agent('hera', 'god')] });
  const as = (id: string, args: unknown) => b.cmd('get_tile', args, { headers: { authorization: `Bearer ${token(id)}`, 'idempotency-key': 'shared-key' } });
  t.equal((await as('zeus', { x: 1, y: 1 })).status, 200);
  const hera = await as('hera', { x: 2, y: 2 });
  t.equal(hera.status, 200, 'not a conflict: another credential');
  t.equal(hera.body.result.x, 2);
  t.equal((await as('zeus', { x: 1, y: 1 })).headers.get('idempotent-replayed'), 'true');
  t.equal((await as('hera', { x: 1, y: 1 })).status, 400, "hera's key now stands for her own request");
});
