// decisions §10 and §13: a long-held pool (event streams, MCP sessions). In multi-agent mode one
// agent holds at most half (rounded up); a quarter (rounded down) is kept for agents with read_all;
// each refusal is BUSY and says which cap is full.
import t from 'tap';
import { CappedLeases, isRefusal, type Lease } from '../../src/admission/capped-leases.ts';
import type { Failure } from '../../src/errors/bridge-error.ts';

const WORDS = { noun: 'widgets', cap: '[Test] max_widgets', counts: 'waiting ones count', freeOne: 'close one' };
const player = (agentId: string) => ({ agentId, readAll: false, multiAgent: true });
const god = (agentId: string) => ({ agentId, readAll: true, multiAgent: true });

function lease(value: Lease | Failure): Lease {
  if (isRefusal(value)) throw new Error(`refused: ${value.message}`);
  return value;
}

function refusal(value: Lease | Failure): Failure {
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
    const leases = new CappedLeases(limit, WORDS);
    t.same([leases.perAgent, leases.reserved], [perAgent, reserved], `limit ${limit}`);
  }
});

t.test('two players at their half cannot take the kept quarter; read_all agents still get in', async (t) => {
  const leases = new CappedLeases(16, WORDS);
  const athena = Array.from({ length: 8 }, () => lease(leases.take(player('athena'))));
  const ownShare = refusal(leases.take(player('athena')));
  t.equal(ownShare.code, 'BUSY');
  t.match(
    ownShare.message,
    /^agent 'athena' already holds 8 widgets, its share \(half of the 16 of \[Test\] max_widgets, rounded up\); close one, or retry later$/,
  );

  const ares = Array.from({ length: 4 }, () => lease(leases.take(player('ares'))));
  const kept = refusal(leases.take(player('ares')));
  t.equal(kept.code, 'BUSY');
  t.match(kept.message, /the 12 widgets open to agents without read_all are all taken; the other 4 .*\[Test\] max_widgets.* kept for agents with read_all/);
  t.equal(refusal(leases.take(player('pan'))).message, kept.message, 'a third player too');
  t.equal(leases.inUse, 12);

  const zeus = Array.from({ length: 3 }, () => lease(leases.take(god('zeus'))));
  const owl = lease(leases.take(god('owl')));
  t.equal(leases.inUse, 16);
  const full = refusal(leases.take(god('bard')));
  t.equal(full.message, 'all 16 widgets are taken ([Test] max_widgets; waiting ones count); close one of yours, or retry later');
  t.same(leases.whenFull(), full, 'whenFull() says the same before any work');

  // A player's place back lets a player in again; a read_all place back does not.
  owl.release();
  t.equal(refusal(leases.take(player('ares'))).message, kept.message, 'a read_all place freed stays kept');
  lease(leases.take(god('owl')));
  athena[0]!.release();
  athena[0]!.release();
  t.equal(leases.inUse, 15, 'release() is idempotent');
  t.equal(leases.whenFull(), null);
  lease(leases.take(player('ares')));
  t.equal(leases.inUse, 16);
  for (const l of [...athena, ...ares, ...zeus]) l.release();
});

t.test('read_all agents may fill the whole pool, within their half', async (t) => {
  const leases = new CappedLeases(8, WORDS);
  for (let i = 0; i < 4; i++) lease(leases.take(god('zeus')));
  t.match(refusal(leases.take(god('zeus'))).message, /^agent 'zeus' already holds 4 widgets/);
  for (let i = 0; i < 4; i++) lease(leases.take(god('owl')));
  t.equal(leases.inUse, 8);
});

t.test('one credential (legacy mode): no half, and it holds read_all', async (t) => {
  const leases = new CappedLeases(4, WORDS);
  for (let i = 0; i < 4; i++) lease(leases.take({ agentId: 'legacy', readAll: true, multiAgent: false }));
  t.match(refusal(leases.take({ agentId: 'legacy', readAll: true, multiAgent: false })).message, /^all 4 widgets are taken/);
  // Without read_all (an MCP token while the bridge is disabled) the kept quarter still holds.
  const other = new CappedLeases(4, WORDS);
  for (let i = 0; i < 3; i++) lease(other.take({ agentId: 'legacy', readAll: false, multiAgent: false }));
  t.match(refusal(other.take({ agentId: 'legacy', readAll: false, multiAgent: false })).message, /open to agents without read_all/);
});

t.test('a player’s place given back lets another player in', async (t) => {
  const leases = new CappedLeases(4, WORDS);
  const taken = lease(leases.take(player('athena')));
  lease(leases.take(player('ares')));
  lease(leases.take(player('pan')));
  t.match(refusal(leases.take(player('eris'))).message, /open to agents without read_all/);
  taken.release();
  lease(leases.take(player('eris')));
  t.equal(leases.inUse, 3);
});

t.test('an agent that gives one place back may take one again, and no more than its half', async (t) => {
  const leases = new CappedLeases(8, WORDS);
  const held = Array.from({ length: 4 }, () => lease(leases.take(player('athena'))));
  held[0]!.release();
  lease(leases.take(player('athena')));
  t.match(refusal(leases.take(player('athena'))).message, /^agent 'athena' already holds 4 widgets/, 'the count went down by one, not to zero');
  for (const l of held.slice(1)) l.release();
  t.equal(leases.inUse, 1);
});

t.test('words without what counts: the full message leaves that part out', async (t) => {
  const leases = new CappedLeases(1, { noun: 'sessions', cap: '[Test] max_sessions', freeOne: 'end one' });
  lease(leases.take(god('zeus')));
  t.equal(refusal(leases.take(god('owl'))).message, 'all 1 sessions are taken ([Test] max_sessions); end one of yours, or retry later');
});
