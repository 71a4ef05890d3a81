// decisions §10 and §13: a long-held pool (event streams, MCP sessions). In multi-agent mode one
// agent holds at most half (rounded up); a quarter (rounded down) is kept for agents with read_all;
// each refusal is BUSY and says which cap is full.
import t from 'tap';
import { CappedSlots, isRefusal, type SlotLease } from '../../src/admission/capped-slots.ts';
import type { Failure } from '../../src/errors/bridge-error.ts';

const WORDS = { noun: 'widgets', cap: '[Test] max_widgets', counts: 'waiting ones count', freeOne: 'close one' };
const player = (agentId: string) => ({ agentId, readAll: false, multiAgent: true });
const god = (agentId: string) => ({ agentId, readAll: true, multiAgent: true });

function lease(value: SlotLease | Failure): SlotLease {
  if (isRefusal(value)) throw new Error(`refused: ${value.message}`);
  return value;
}

function refusal(value: SlotLease | Failure): Failure {
  if (!isRefusal(value)) throw new Error('a place was given');
  return value;
}

t.test('the sizes: half rounded up per agent, a quarter rounded down kept', async (t) => {
  for (const [limit, perAgent, reserved] of [
    [1, 1, 0],
    [3, 2, 0],
    [4, 2, 1],
    [7, 4, 1],
    [16, 8, 4],
    [64, 32, 16],
    [256, 128, 64],
  ] as const) {
    const slots = new CappedSlots(limit, WORDS);
    t.same([slots.perAgent, slots.reserved], [perAgent, reserved], `limit ${limit}`);
  }
});

t.test('two players at their half cannot take the kept quarter; read_all agents still get in', async (t) => {
  const slots = new CappedSlots(16, WORDS);
  const athena = Array.from({ length: 8 }, () => lease(slots.take(player('athena'))));
  const ownShare = refusal(slots.take(player('athena')));
  t.equal(ownShare.code, 'BUSY');
  t.match(
    ownShare.message,
    /^agent 'athena' already holds 8 widgets, its share \(half of the 16 of \[Test\] max_widgets, rounded up\); close one, or retry later$/,
  );

  const ares = Array.from({ length: 4 }, () => lease(slots.take(player('ares'))));
  const kept = refusal(slots.take(player('ares')));
  t.equal(kept.code, 'BUSY');
  t.match(kept.message, /the 12 widgets open to agents without read_all are all taken; the other 4 .*\[Test\] max_widgets.* kept for agents with read_all/);
  t.equal(refusal(slots.take(player('pan'))).message, kept.message, 'a third player too');
  t.equal(slots.inUse, 12);

  const zeus = Array.from({ length: 3 }, () => lease(slots.take(god('zeus'))));
  const owl = lease(slots.take(god('owl')));
  t.equal(slots.inUse, 16);
  const full = refusal(slots.take(god('bard')));
  t.equal(full.message, 'all 16 widgets are taken ([Test] max_widgets; waiting ones count); close one of yours, or retry later');
  t.same(slots.whenFull(), full, 'whenFull() says the same before any work');

  // A player's place back lets a player in again; a read_all place back does not.
  owl.release();
  t.equal(refusal(slots.take(player('ares'))).message, kept.message, 'a read_all place freed stays kept');
  lease(slots.take(god('owl')));
  athena[0]!.release();
  athena[0]!.release();
  t.equal(slots.inUse, 15, 'release() is idempotent');
  t.equal(slots.whenFull(), null);
  lease(slots.take(player('ares')));
  t.equal(slots.inUse, 16);
  for (const l of [...athena, ...ares, ...zeus]) l.release();
});

t.test('read_all agents may fill the whole pool, within their half', async (t) => {
  const slots = new CappedSlots(8, WORDS);
  for (let i = 0; i < 4; i++) lease(slots.take(god('zeus')));
  t.match(refusal(slots.take(god('zeus'))).message, /^agent 'zeus' already holds 4 widgets/);
  for (let i = 0; i < 4; i++) lease(slots.take(god('owl')));
  t.equal(slots.inUse, 8);
});

t.test('one credential (legacy mode): no half, and it holds read_all', async (t) => {
  const slots = new CappedSlots(4, WORDS);
  for (let i = 0; i < 4; i++) lease(slots.take({ agentId: 'legacy', readAll: true, multiAgent: false }));
  t.match(refusal(slots.take({ agentId: 'legacy', readAll: true, multiAgent: false })).message, /^all 4 widgets are taken/);
  // Without read_all (an MCP token while the bridge is disabled) the kept quarter still holds.
  const other = new CappedSlots(4, WORDS);
  for (let i = 0; i < 3; i++) lease(other.take({ agentId: 'legacy', readAll: false, multiAgent: false }));
  t.match(refusal(other.take({ agentId: 'legacy', readAll: false, multiAgent: false })).message, /open to agents without read_all/);
});

t.test('a player’s place given back lets another player in', async (t) => {
  const slots = new CappedSlots(4, WORDS);
  const taken = lease(slots.take(player('athena')));
  lease(slots.take(player('ares')));
  lease(slots.take(player('pan')));
  t.match(refusal(slots.take(player('eris'))).message, /open to agents without read_all/);
  taken.release();
  lease(slots.take(player('eris')));
  t.equal(slots.inUse, 3);
});

t.test('an agent that gives one place back may take one again, and no more than its half', async (t) => {
  const slots = new CappedSlots(8, WORDS);
  const held = Array.from({ length: 4 }, () => lease(slots.take(player('athena'))));
  held[0]!.release();
  lease(slots.take(player('athena')));
  t.match(refusal(slots.take(player('athena'))).message, /^agent 'athena' already holds 4 widgets/, 'the count went down by one, not to zero');
  for (const l of held.slice(1)) l.release();
  t.equal(slots.inUse, 1);
});

t.test('words without what counts: the full message leaves that part out', async (t) => {
  const slots = new CappedSlots(1, { noun: 'sessions', cap: '[Test] max_sessions', freeOne: 'end one' });
  lease(slots.take(god('zeus')));
  t.equal(refusal(slots.take(god('owl'))).message, 'all 1 sessions are taken ([Test] max_sessions); end one of yours, or retry later');
});
