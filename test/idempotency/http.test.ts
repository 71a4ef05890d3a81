// decisions §8 and §13 over real HTTP: Idempotency-Key on POST /cmd. Replays, a reused key for
// another request, the key's syntax, answers that are not kept, reads that keep nothing, keys per
// credential.
import t from 'tap';
import type { Mark } from '../fixtures/batch-commands.ts';
import { fixture } from '../helpers/paths.ts';
import { startTestBridge, type TestBridge } from '../helpers/bridge.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';
import { IDEMPOTENCY_COMMANDS, keyed } from './helpers.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

const BATCH_COMMANDS = fixture('batch-commands.ts');
const tags = async (b: TestBridge) => ((await b.cmd('marks')).body.result as Mark[]).map((m) => m.tag);

t.test('the same key and request replays the kept answer; another request under it is 400; a bad key is 400', async (t) => {
  const b = await startTestBridge(t, { commandModules: [BATCH_COMMANDS, IDEMPOTENCY_COMMANDS] });
  const first = await b.cmd('mark_action', { tag: 'once' }, keyed('key-1'));
  t.equal(first.status, 200);
  t.equal(first.headers.get('idempotent-replayed'), null);
  t.equal(first.headers.get('idempotent-stored'), null, 'kept: no header');
  const again = await b.cmd('mark_action', { tag: 'once' }, keyed('key-1'));
  t.equal(again.status, 200);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.headers.get('idempotent-stored'), null);
  t.same(again.body, first.body, 'the very answer, tick included');
  t.same(await tags(b), ['once'], 'ran once');
  t.equal(b.bridge.stats().idempotentReplays, 1);
  t.ok(b.bridge.stats().idempotentBytes > 0, 'the kept answer counts');

  const other = await b.cmd('mark_action', { tag: 'twice' }, keyed('key-1'));
  t.equal(other.status, 400);
  t.match(other.body.error, { code: 'BAD_ARGS', message: /Idempotency-Key 'key-1' was already used .* for another request/ });
  const crash = await b.cmd('throw_action', {}, keyed('key-crash'));
  t.equal(crash.status, 500);
  const crashAgain = await b.cmd('throw_action', {}, keyed('key-crash'));
  t.equal(crashAgain.headers.get('idempotent-replayed'), 'true', 'a 500 reached the game: kept');
  t.same(crashAgain.body, crash.body);

  for (const [key, why] of [
    ['two words', /without spaces/],
    ['k'.repeat(300), /1 to 255 printable ASCII.*300 characters/],
  ] as const) {
    const bad = await b.cmd('mark_action', { tag: 'never' }, keyed(key));
    t.equal(bad.status, 400);
    t.match(bad.body.error, { code: 'BAD_ARGS', message: why });
  }
  const unknown = await b.cmd('mrak', {}, keyed('key-404'));
  t.equal(unknown.status, 404);
  t.equal(unknown.headers.get('idempotent-stored'), 'false', 'not kept, and it says so');
  const real = await b.cmd('mark_action', { tag: 'x' }, keyed('key-404'));
  t.equal(real.status, 200, 'a 404 is not kept: the key is free for the real request');
  t.equal(real.headers.get('idempotent-stored'), null);
  t.same(await tags(b), ['once', 'x']);
});

t.test('a keyed read keeps nothing and checks nothing: it runs again and says Idempotent-Stored: false', async (t) => {
  const b = await startTestBridge(t, { commandModules: [BATCH_COMMANDS] });
  const bytes = b.bridge.stats().idempotentBytes;
  for (const tag of ['read-1', 'read-1', 'read-2']) {
    const read = await b.cmd('mark', { tag }, keyed('read-key'));
    t.equal(read.status, 200, 'another request under the key is no conflict either');
    t.equal(read.headers.get('idempotent-stored'), 'false');
    t.equal(read.headers.get('idempotent-replayed'), null);
  }
  t.same(await tags(b), ['read-1', 'read-1', 'read-2'], 'each ran');
  t.equal(b.bridge.stats().idempotentReplays, 0);
  t.equal(b.bridge.stats().idempotentBytes, bytes, 'nothing kept');
  const meta = await b.cmd('whoami', {}, keyed('read-key'));
  t.equal(meta.headers.get('idempotent-stored'), 'false', 'a meta command neither');
  const action = await b.cmd('mark_action', { tag: 'act' }, keyed('read-key'));
  t.equal(action.status, 200, 'the key stands for nothing yet');
  t.equal(action.headers.get('idempotent-stored'), null, 'an action keeps its answer');
  t.equal((await b.cmd('mark_action', { tag: 'act' }, keyed('read-key'))).headers.get('idempotent-replayed'), 'true');
  t.equal((await b.cmd('mark', { tag: 'read-3' }, keyed('read-key'))).status, 200, 'a read under an action key runs');
  const unkeyed = await b.cmd('mark', { tag: 'read-4' });
  t.equal(unkeyed.headers.get('idempotent-stored'), null, 'a request without a key gets no header');
});

t.test('keys are per credential: two agents may use one key for different requests', async (t) => {
  const { b } = await startAgents(t, { agents: [agent('zeus', 'god'), agent('hera', 'god')] });
  const send = (from: string, to: string, content: string) =>
    b.cmd('send_message', { to, content }, { headers: { authorization: `Bearer ${token(from)}`, 'idempotency-key': 'shared-key' } });
  const first = await send('zeus', 'hera', 'from zeus');
  t.equal(first.status, 200);
  const hera = await send('hera', 'zeus', 'from hera');
  t.equal(hera.status, 200, 'not a conflict: another credential');
  t.equal(hera.headers.get('idempotent-replayed'), null);
  const retry = await send('zeus', 'hera', 'from zeus');
  t.equal(retry.headers.get('idempotent-replayed'), 'true', 'send_message keeps its answer');
  t.same(retry.body, first.body);
  t.equal((await send('hera', 'zeus', 'from zeus')).status, 400, "hera's key now stands for her own request");
  const inbox = await b.cmd('recv_messages', {}, { headers: { authorization: `Bearer ${token('hera')}` } });
  t.same(
    inbox.body.result.items.map((m: { content: string }) => m.content),
    ['from zeus'],
    'the retry sent nothing',
  );
});

t.test('a keyed turn_advance keeps its answer: a retry does not pass the turn twice', async (t) => {
  const { b } = await startAgents(t, {
    turn_based: true,
    turn_order: ['p1', 'p2', 'p3'],
    agents: [agent('dm', 'god'), agent('p1', 'faction_player'), agent('p2', 'faction_player'), agent('p3', 'faction_player')],
  });
  const advance = () => b.cmd('turn_advance', {}, { headers: { authorization: `Bearer ${token('dm')}`, 'idempotency-key': 'advance-once' } });
  const holder = async () => (await b.cmd('session_info', {}, { headers: { authorization: `Bearer ${token('dm')}` } })).body.result.current_turn;
  t.equal(await holder(), 'p1');
  const first = await advance();
  t.equal(first.status, 200);
  t.equal(await holder(), 'p2');
  const retry = await advance();
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.same(retry.body, first.body);
  t.equal(await holder(), 'p2', 'the retry passed nothing');
});
