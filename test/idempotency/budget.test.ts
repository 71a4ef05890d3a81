// decisions §13 over real HTTP, at test scale ([Bridge] idempotency_budget_mb = 1): the kept answers
// stay within the budget and each agent's share whatever one agent sends, a keyed read keeps
// nothing, and an answer over 256 KiB is not kept and says so.
import t from 'tap';
import { agent } from '../multi-agent/helpers.ts';
import { budgetBridge, type Answer } from './helpers.ts';

t.setTimeout(180_000); // real bridges on a machine that may be loaded

const MiB = 1024 * 1024;

t.test('a keyed read of a full inbox, again and again with fresh keys, keeps nothing', async (t) => {
  const { b, as } = await budgetBridge(t, 1);
  const content = 'm'.repeat(4000);
  for (let i = 0; i < 50; i++) t.equal((await as(null, 'send_message', { to: 'legacy', content }, `send-${i}`)).status, 200);
  const afterSends = b.bridge.stats().idempotentBytes;
  t.ok(afterSends > 0 && afterSends <= 50 * 1024, `the 50 small send_message answers are kept (${afterSends} bytes)`);
  t.equal((await as(null, 'send_message', { to: 'legacy', content }, 'send-0')).headers.get('idempotent-replayed'), 'true');
  let read: Answer | undefined;
  for (let i = 0; i < 20; i++) {
    read = await as(null, 'recv_messages', { since_seq: 0, max: 500 }, `read-${i}`);
    t.equal(read.status, 200);
    t.equal(read.headers.get('idempotent-stored'), 'false', 'a bus read: not kept');
    t.ok(b.bridge.stats().idempotentBytes <= afterSends, 'nothing added');
  }
  t.equal(read!.body.result.count, 50, 'each read carried the 50 messages (about 200 KB), and the retry sent none');
  const again = await as(null, 'recv_messages', { since_seq: 0, max: 500 }, 'read-0');
  t.equal(again.headers.get('idempotent-replayed'), null, 'the same key reads again');
  t.equal(b.bridge.stats().idempotentBytes, afterSends);
});

t.test("athena's kept spawn is still replayed after ares floods keyed actions far past the budget", async (t) => {
  const { b, as } = await budgetBridge(t, 1, { agents: [agent('athena', 'god'), agent('ares', 'god')] });
  const actor = (await as('athena', 'list_actors', {})).body.result.items.find((a: { race: string }) => a.race === 'human')?.id ?? 'human';
  let spot = { x: 10, y: 10 };
  search: for (let y = 10; y < 250; y += 7)
    for (let x = 10; x < 250; x += 7)
      if (!/water|ocean|lava/.test((await as('athena', 'get_tile', { x, y })).body.result.tile_id)) {
        spot = { x, y };
        break search;
      }
  const spawn = { entity_id: actor, ...spot };
  const first = await as('athena', 'spawn', spawn, 'athena-spawn-1');
  t.equal(first.status, 200);
  t.equal(first.headers.get('idempotent-stored'), null, 'kept');

  const runs: number[] = [];
  for (let i = 0; i < 24; i++) {
    const flood = await as('ares', 'big_action', { bytes: 100_000 }, `ares-big-${i}`);
    t.equal(flood.status, 200);
    runs.push(flood.body.result.run);
    const message = await as('ares', 'send_message', { to: 'athena', content: `flood ${i}` }, `ares-send-${i}`);
    t.equal(message.status, 200);
    const bytes = b.bridge.stats().idempotentBytes;
    if (!(bytes <= MiB)) return t.fail(`the kept answers hold ${bytes} bytes, over the 1 MiB budget`);
  }
  t.pass('2.4 MB of answers kept within the 1 MiB budget');

  const retry = await as('athena', 'spawn', spawn, 'athena-spawn-1');
  t.equal(retry.status, 200);
  t.equal(retry.headers.get('idempotent-replayed'), 'true', "athena's key survived: ares lost only its own");
  t.same(retry.body, first.body, 'the same names: spawned once');
  const newest = await as('ares', 'big_action', { bytes: 100_000 }, 'ares-big-23');
  t.equal(newest.headers.get('idempotent-replayed'), 'true', "ares's newest answer is kept");
  const oldest = await as('ares', 'big_action', { bytes: 100_000 }, 'ares-big-0');
  t.equal(oldest.headers.get('idempotent-replayed'), null, "ares's oldest went: within its half of the budget");
  t.not(oldest.body.result.run, runs[0], 'so it ran again');
});

t.test('an answer over 256 KiB is not kept and says Idempotent-Stored: false; a retry runs it again', async (t) => {
  const { b, as } = await budgetBridge(t, 1);
  const big = await as(null, 'big_action', { bytes: 300 * 1024 }, 'big-1');
  t.equal(big.status, 200);
  t.equal(big.headers.get('idempotent-stored'), 'false');
  t.equal(big.body.result.pad.length, 300 * 1024, 'the whole answer, sent once');
  t.equal(b.bridge.stats().idempotentBytes, 0);
  const retry = await as(null, 'big_action', { bytes: 300 * 1024 }, 'big-1');
  t.equal(retry.headers.get('idempotent-replayed'), null);
  t.equal(retry.headers.get('idempotent-stored'), 'false');
  t.equal(retry.body.result.run, big.body.result.run + 1, 'it ran again');

  const fits = await as(null, 'big_action', { bytes: 200 * 1024 }, 'big-2');
  t.equal(fits.headers.get('idempotent-stored'), null, 'within 256 KiB and the share: kept');
  t.ok(b.bridge.stats().idempotentBytes > 200 * 1024);
  const replayed = await as(null, 'big_action', { bytes: 200 * 1024 }, 'big-2');
  t.equal(replayed.headers.get('idempotent-replayed'), 'true');
  t.equal(replayed.body.result.run, fits.body.result.run);
});
