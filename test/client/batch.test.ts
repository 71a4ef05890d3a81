// decisions §8 in the typed client: client.batch() typed per item, an Idempotency-Key on every
// action and control command, and one retry with the same key after a dropped connection.
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { keepsAnswer } from '../../src/commands/define.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { KEYED_COMMANDS, READ_COMMANDS } from '../../src/client/commands.ts';
import { BridgeCallError, BridgeConnectionError, createClient } from '../../src/client/index.ts';
import { startTestBridge } from '../helpers/bridge.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

t.test('the keyed commands are exactly the catalogue’s commands whose answers the bridge keeps', async (t) => {
  const expected = COMMANDS.filter(keepsAnswer).map((def) => def.name);
  t.same([...KEYED_COMMANDS].sort(), expected.sort());
});

t.test('the read commands are the rest of the catalogue: none keyed, none left out', async (t) => {
  const rest = COMMANDS.filter((def) => !keepsAnswer(def)).map((def) => def.name);
  t.same([...READ_COMMANDS].sort(), rest.sort());
});

t.test('a read whose connection dropped is sent once more; a name outside the catalogue is not', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const sent: string[] = [];
  let drops = 0;
  const dropping: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { name: string }).name : String(input);
    sent.push(body);
    const response = await fetch(input, init);
    if (drops > 0) {
      drops--;
      await response.text();
      throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET', message: 'other side closed' } });
    }
    return response;
  };
  const client = createClient({ url: b.bridge.url, token: b.token, fetch: dropping });

  drops = 1;
  const who = await client.call('whoami');
  t.ok(typeof who.agent_id === 'string', 'the read answered');
  t.same(sent, ['whoami', 'whoami'], 'sent twice');

  sent.length = 0;
  drops = 1;
  await client.health();
  t.equal(sent.length, 2, 'GET /health is sent again too');

  sent.length = 0;
  drops = 2;
  const twice = await client.call('get_world_state').catch((err: unknown) => err);
  t.ok(twice instanceof BridgeConnectionError, 'a second drop is the error');
  t.equal(sent.length, 2, 'only once more');

  sent.length = 0;
  drops = 1;
  const unknown = await client.request('a_games_own_command', {}).catch((err: unknown) => err);
  t.ok(unknown instanceof BridgeConnectionError, 'a command the client cannot tell is a read is not sent again');
  t.same(sent, ['a_games_own_command']);
});

t.test('client.batch against the sandbox: typed results, keys sent, a dropped connection retried once with the same key', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const sent: Array<{ name: string; key: string | null }> = [];
  let dropNext = false;
  const recording: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { name: string }) : { name: '' };
    sent.push({ name: body.name, key: headers.get('idempotency-key') });
    const response = await fetch(input, init);
    if (dropNext) {
      // The bridge ran it, but the answer never reached the client.
      dropNext = false;
      await response.text();
      throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET', message: 'socket hang up' } });
    }
    return response;
  };
  const client = createClient({ url: b.bridge.url, token: b.token, fetch: recording });

  const answer = await client.batch([
    { name: 'get_tile', args: { x: 3, y: 4 } },
    { name: 'list_speeds' },
    { name: 'get_tile', args: { x: 9999, y: 0 } },
    { name: 'pause' },
  ]);
  t.match(answer, { completed: 2, failed: 1, skipped: 1 });
  const [tile, speeds, off, paused] = answer.results;
  if (tile.ok) t.equal(tile.result.x, 3, 'item 0 is typed as get_tile');
  else t.fail('get_tile ran');
  if (speeds.ok) t.ok(Array.isArray(speeds.result.items));
  t.match(off, { ok: false, error: { code: 'OUT_OF_BOUNDS' } });
  t.same(paused, { ok: false, skipped: true });
  t.match(sent.at(-1), { name: 'batch', key: /^[0-9a-f-]{36}$/ });

  await client.call('get_world_state');
  t.equal(sent.at(-1)!.key, null, 'a read carries no key');
  await client.call('resume');
  t.match(sent.at(-1), { name: 'resume', key: /^[0-9a-f-]{36}$/ }, 'a control command carries one');

  const at = sent.length;
  dropNext = true;
  const spawned = await client.call('spawn', { entity_id: 'human', x: 128, y: 128 });
  const attempts = sent.slice(at);
  t.equal(attempts.length, 2, 'sent twice');
  t.equal(attempts[0]!.key, attempts[1]!.key, 'with the same key');
  t.equal(spawned.requested, 1);
  // The world lives on (births, deaths), so the proof is the bridge's: it replayed, ran nothing.
  t.equal(b.bridge.stats().idempotentReplays, 1, 'the retry was answered from the kept answer, not run again');

  const refused = await client.batch([{ name: 'get_tile', args: { x: 1, y: 1 } }, { name: 'pause' }], { stopOnError: false }).catch((err: unknown) => err);
  t.notOk(refused instanceof BridgeCallError, 'a valid batch is not refused');
  // @ts-expect-error a batch does not nest, and the types say so
  const nested = await client.batch([{ name: 'batch', args: { commands: [] } }]).catch((err: unknown) => err);
  t.ok(nested instanceof BridgeCallError && nested.code === 'BAD_ARGS', 'a nested batch is BAD_ARGS');
});
