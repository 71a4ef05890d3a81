// The kept answers of Idempotency-Key requests (decisions §8 and §13), without a bridge.
import t from 'tap';
import { keyProblem, fingerprint } from '../../src/idempotency/key.ts';
import { IdempotencyStore, type KeptAnswer } from '../../src/idempotency/store.ts';
import { LIMITS } from '../../src/limits.ts';

const answer = (body: string, status = 200): KeptAnswer => ({ status, body, code: null });
const OVERHEAD = LIMITS.idempotencyEntryOverheadBytes;

/** Runs a first request of `key` and finishes it with `body`; whether the store kept it. */
function keep(store: IdempotencyStore, scope: string, key: string, body: string): boolean {
  const claim = store.claim(scope, key, 'p');
  if (claim.kind !== 'run') throw new Error(`${key}: expected a first run, got ${claim.kind}`);
  return claim.finish(answer(body));
}

t.test('first runs, the same request replays, another request under the key conflicts, scopes are apart', async (t) => {
  const store = new IdempotencyStore({ agents: ['agent-a', 'agent-b'] });
  const first = store.claim('agent-a', 'k', 'print-1');
  t.equal(first.kind, 'run');
  if (first.kind === 'run') t.equal(first.finish(answer('one')), true, 'kept');
  t.match(store.claim('agent-a', 'k', 'print-1'), { kind: 'replay', answer: { body: 'one' } });
  t.same(store.claim('agent-a', 'k', 'print-2'), { kind: 'conflict' });
  t.equal(store.claim('agent-b', 'k', 'print-2').kind, 'run', 'another credential has its own keys');
  t.equal(store.replays, 1);
});

t.test('a retry during the first run waits for its answer; an answer that means nothing ran is not kept', async (t) => {
  const store = new IdempotencyStore({ agents: ['a'] });
  const first = store.claim('a', 'k', 'p');
  const retry = store.claim('a', 'k', 'p');
  t.equal(retry.kind, 'wait');
  if (first.kind !== 'run' || retry.kind !== 'wait') return;
  t.equal(first.finish(answer('done')), true);
  t.match(await retry.answer, { body: 'done' });
  t.equal(store.replays, 1);
  t.equal(first.finish(answer('again')), false, 'a second finish does nothing');
  t.equal(store.bytes, 4 + OVERHEAD, 'counted once');

  const again = store.claim('a', 'k2', 'p');
  const waiting = store.claim('a', 'k2', 'p');
  if (again.kind !== 'run' || waiting.kind !== 'wait') return t.fail('run then wait');
  t.equal(again.finish(null), false);
  t.equal(await waiting.answer, null, 'the waiter learns nothing ran, and runs itself');
  t.equal(store.claim('a', 'k2', 'p').kind, 'run');
  t.equal(store.replays, 1);
  t.equal(store.size, 2, 'k and the running k2');
});

t.test('answers expire after the ttl, counted from when they finished; a running key never does', async (t) => {
  let now = 0;
  const store = new IdempotencyStore({ agents: ['a'], ttlMs: 1000, now: () => now });
  const running = store.claim('a', 'running', 'p');
  keep(store, 'a', 'k1', 'one');
  now = 500;
  keep(store, 'a', 'k2', 'two');
  now = 999;
  t.equal(store.claim('a', 'k1', 'p').kind, 'replay');
  now = 1000;
  t.equal(store.claim('a', 'k1', 'p').kind, 'run', 'expired at the ttl');
  t.equal(store.claim('a', 'k2', 'p').kind, 'replay', 'a younger one stays');
  t.equal(store.bytesOf('a'), 3 + OVERHEAD, 'the expired answer no longer counts');
  t.equal(store.claim('a', 'running', 'p').kind, 'wait', 'the running key stayed');
  if (running.kind === 'run') running.finish(answer('late'));
  now = 1999;
  t.equal(store.claim('a', 'running', 'p').kind, 'replay', 'kept from when it finished');
  now = 2000;
  t.equal(store.claim('a', 'running', 'p').kind, 'run');
});

t.test("an agent's own expired answer is never replayed, whichever agent's turn it is to be swept", async (t) => {
  // With b claiming once more or not, a's claim comes on a's turn or on b's.
  for (const claimsOfB of [0, 1]) {
    let now = 0;
    const store = new IdempotencyStore({ agents: ['a', 'b'], ttlMs: 1000, now: () => now });
    keep(store, 'a', 'k', 'one');
    for (let i = 0; i < claimsOfB; i++) store.claim('b', `b${i}`, 'p');
    now = 1000;
    t.equal(store.claim('a', 'k', 'p').kind, 'run', `after ${claimsOfB} claim(s) of b`);
  }
});

t.test("an idle agent's expired answers are freed by other agents' claims", async (t) => {
  let now = 0;
  const store = new IdempotencyStore({ agents: ['idle', 'busy', 'third'], ttlMs: 1000, now: () => now });
  keep(store, 'idle', 'k', 'x'.repeat(100));
  keep(store, 'third', 'k', 'x'.repeat(100));
  now = 1000;
  for (let i = 0; i < 3; i++) store.claim('busy', `k${i}`, 'p');
  t.equal(store.bytesOf('idle'), 0, 'freed without a claim of its own');
  t.equal(store.bytesOf('third'), 0);
  t.equal(store.bytes, 0);
});

t.test('the default budget is 64 MiB and the default ttl 10 minutes', async (t) => {
  let now = 0;
  const store = new IdempotencyStore({ agents: ['a'], now: () => now });
  t.equal(store.share, 64 * 1024 * 1024);
  keep(store, 'a', 'k', 'x');
  now = 10 * 60_000 - 1;
  t.equal(store.claim('a', 'k', 'p').kind, 'replay');
  now = 10 * 60_000;
  t.equal(store.claim('a', 'k', 'p').kind, 'run');
  t.equal(new IdempotencyStore().share, 0, 'no agents, no share');
  t.equal(keep(new IdempotencyStore(), 'a', 'k', 'x'), false, 'an agent the store does not know keeps nothing');
});

t.test('an answer costs its UTF-8 bytes and a fixed overhead; the bytes are counted per agent and in all', async (t) => {
  const store = new IdempotencyStore({ agents: ['a', 'b'] });
  keep(store, 'a', 'k1', 'é€');
  keep(store, 'b', 'k1', 'abc');
  t.equal(store.bytesOf('a'), 5 + OVERHEAD, 'é is 2 bytes, € is 3');
  t.equal(store.bytesOf('b'), 3 + OVERHEAD);
  t.equal(store.bytes, 8 + 2 * OVERHEAD);
  t.equal(store.bytesOf('nobody'), 0);
});

t.test('one agent filling the store stays within its share and the budget; the other agent keeps its key', async (t) => {
  const budget = 1024 * 1024;
  const store = new IdempotencyStore({ budgetBytes: budget, agents: ['athena', 'ares'] });
  t.equal(store.share, budget / 2);
  t.equal(keep(store, 'athena', 'spawn-1', '{"ok":true,"result":{"name":"Athena"}}'), true);
  // Far more keys than any count bound, and far more bytes than the budget.
  for (let i = 0; i < 12_000; i++) {
    keep(store, 'ares', `flood-${i}`, i % 100 === 0 ? 'y'.repeat(64 * 1024) : '{"ok":true}');
    if (store.bytes > budget || store.bytesOf('ares') > store.share) return t.fail(`over the bound after ${i + 1} answers`);
  }
  t.ok(store.bytesOf('ares') > store.share - 64 * 1024 - OVERHEAD, 'ares uses its share');
  t.match(store.claim('athena', 'spawn-1', 'p'), { kind: 'replay', answer: { body: /Athena/ } }, "athena's key survived");
  t.equal(store.claim('ares', 'flood-11999', 'p').kind, 'replay', "ares's newest answer is kept");
  t.equal(store.claim('ares', 'flood-0', 'p').kind, 'run', "ares's oldest went");
});

t.test('an agent at its share loses its own oldest answers first, just as many as the new one needs', async (t) => {
  const body = 'x'.repeat(1000 - OVERHEAD); // each costs 1000
  const store = new IdempotencyStore({ budgetBytes: 6_001, agents: ['a', 'b'] });
  t.equal(store.share, 3000, 'the budget divided by the agents, rounded down');
  for (const key of ['k1', 'k2', 'k3']) t.equal(keep(store, 'a', key, body), true);
  t.equal(store.bytesOf('a'), 3000, 'exactly the share');
  t.equal(keep(store, 'a', 'k4', body), true);
  t.equal(store.claim('a', 'k1', 'p').kind, 'run', 'the oldest went');
  t.equal(store.claim('a', 'k2', 'p').kind, 'replay', 'only it');
  t.equal(keep(store, 'a', 'k5', 'x'.repeat(2000 - OVERHEAD)), true, 'a larger answer');
  t.equal(store.claim('a', 'k2', 'p').kind, 'run', 'k2 was replayed, but it was still the oldest answer');
  t.equal(store.claim('a', 'k3', 'p').kind, 'run', 'two went to make room for it');
  t.equal(store.claim('a', 'k4', 'p').kind, 'replay');
  t.equal(store.bytesOf('a'), 3000);
  t.equal(store.size, 5, 'k2, k5 and the three runs just claimed');
});

t.test('an agent whose answers all went keeps new ones again', async (t) => {
  // Room for k2, k3 and k4, or k3, k4 and k5; not for k1 and k2.
  const store = new IdempotencyStore({ budgetBytes: 1420 + 3 * OVERHEAD, agents: ['a'] });
  keep(store, 'a', 'k1', 'x'.repeat(1000));
  keep(store, 'a', 'k2', 'x'.repeat(1400)); // k1 goes: the queue is empty before k2 joins it
  keep(store, 'a', 'k3', 'x'.repeat(10));
  keep(store, 'a', 'k4', 'x'.repeat(10));
  t.equal(store.claim('a', 'k2', 'p').kind, 'replay');
  keep(store, 'a', 'k5', 'x'.repeat(1400));
  t.equal(store.claim('a', 'k2', 'p').kind, 'run', 'k2 went');
  t.equal(store.claim('a', 'k3', 'p').kind, 'replay', 'only k2');
  t.equal(store.claim('a', 'k4', 'p').kind, 'replay');
  t.equal(store.bytes, 1420 + 3 * OVERHEAD);
});

t.test('an answer over 256 KiB, or over the share, is not kept; a retry already waiting still gets it', async (t) => {
  const max = LIMITS.idempotencyMaxAnswerBytes;
  const store = new IdempotencyStore({ budgetBytes: 4 * max, agents: ['a', 'b'] });
  t.equal(keep(store, 'a', 'exact', 'x'.repeat(max)), true, 'exactly 256 KiB is kept');
  const big = store.claim('a', 'big', 'p');
  const retry = store.claim('a', 'big', 'p');
  if (big.kind !== 'run' || retry.kind !== 'wait') return t.fail('run then wait');
  const over = answer('x'.repeat(max + 1));
  t.equal(big.fits(over), false);
  t.equal(big.finish(over), false, 'one byte more is not');
  t.equal((await retry.answer)?.body.length, max + 1, 'the waiting retry gets the answer of the run it waited for');
  t.equal(store.replays, 1);
  t.equal(store.claim('a', 'big', 'p').kind, 'run', 'a later retry runs again');
  t.equal(store.bytesOf('a'), max + OVERHEAD);

  const small = new IdempotencyStore({ budgetBytes: 2 * (OVERHEAD + 100), agents: ['a', 'b'] });
  const fits = small.claim('a', 'fits', 'p');
  if (fits.kind !== 'run') return t.fail('run');
  t.equal(fits.fits(answer('x'.repeat(100))), true, 'exactly the share');
  t.equal(fits.fits(answer('x'.repeat(101))), false);
  t.equal(fits.finish(answer('x'.repeat(100))), true);
  t.equal(keep(small, 'a', 'over', 'x'.repeat(101)), false, 'larger than the share');
  t.equal(small.claim('a', 'fits', 'p').kind, 'replay', 'and it pushed nothing out');
});

t.test('the share follows the agents: a removed agent loses its answers, one over the new share its oldest', async (t) => {
  const store = new IdempotencyStore({ budgetBytes: 4000, agents: ['a'] });
  for (const key of ['k1', 'k2', 'k3']) keep(store, 'a', key, 'x'.repeat(1000 - OVERHEAD));
  t.equal(store.bytesOf('a'), 3000);
  store.setAgents(['a', 'b']);
  t.equal(store.share, 2000);
  t.equal(store.bytesOf('a'), 2000, 'trimmed to the new share');
  t.equal(store.claim('a', 'k1', 'p').kind, 'run', 'oldest first');
  t.equal(store.claim('a', 'k2', 'p').kind, 'replay');
  keep(store, 'b', 'kb', 'x'.repeat(1000 - OVERHEAD));
  t.equal(store.bytes, 3000);

  const running = store.claim('b', 'running', 'p');
  store.setAgents(['a', 'c', 'c']);
  t.equal(store.share, 2000, 'agents are counted once');
  t.equal(store.bytesOf('b'), 0, "the removed agent's answers went");
  t.equal(store.bytes, 2000);
  if (running.kind !== 'run') return t.fail('run');
  t.equal(running.finish(answer('late')), false, 'an answer of a removed agent is not kept');
  t.equal(keep(store, 'c', 'kc', 'x'), true, 'a new agent keeps answers');
  store.setAgents(['a', 'b', 'c', 'd']);
  t.equal(store.share, 1000);
  t.equal(store.bytesOf('c'), 1 + OVERHEAD, 'within the new share: nothing goes');
  t.equal(store.bytesOf('a'), 1000);
  store.setAgents([]);
  t.equal(store.bytes, 0);
  t.equal(store.size, 1, "only a's running k1 is left");
});

t.test('key syntax and fingerprints', async (t) => {
  t.equal(keyProblem('6f1c2a9e-8d7b-4c3a-9e2f-1a2b3c4d5e6f'), null);
  t.equal(keyProblem('x'.repeat(255)), null);
  t.match(keyProblem(''), /1 to 255 printable ASCII/);
  t.match(keyProblem('x'.repeat(256)), /got 256 characters/);
  t.match(keyProblem('two words'), /without spaces \(got 'two words'\)/);
  t.match(keyProblem('tab\there'), /got 'tab\?here'/);
  t.match(keyProblem('é'), /printable ASCII/);
  t.match(keyProblem(' '.repeat(64)), /got ' {64}'/, 'a bad key of up to 64 characters is shown');
  t.match(keyProblem(' '.repeat(65)), /got 65 characters/, 'a longer one only counted');
  t.equal(fingerprint('spawn', { x: 1 }), fingerprint('spawn', { x: 1 }));
  t.not(fingerprint('spawn', { x: 1 }), fingerprint('spawn', { x: 2 }));
  t.not(fingerprint('spawn', {}), fingerprint('paint_tile', {}));
  t.equal(
    fingerprint('batch', { commands: [{ name: 'spawn', args: { x: 1, y: 2 } }], stop_on_error: true }),
    fingerprint('batch', { stop_on_error: true, commands: [{ args: { y: 2, x: 1 }, name: 'spawn' }] }),
    'members in another order, at any depth, are the same args',
  );
  t.not(
    fingerprint('batch', { commands: [{ name: 'a' }, { name: 'b' }] }),
    fingerprint('batch', { commands: [{ name: 'b' }, { name: 'a' }] }),
    'array order counts',
  );
  t.not(fingerprint('spawn', JSON.parse('{"__proto__":{"x":1}}')), fingerprint('spawn', {}), 'a __proto__ member is part of the args');
  t.not(fingerprint('a', 12), fingerprint('a1', 2), 'the name ends where the args begin');
  t.not(fingerprint('x', [1]), fingerprint('x', { 0: 1 }), 'an array is no object');
  t.equal(fingerprint('x', { a: null, b: [null] }), fingerprint('x', { b: [null], a: null }), 'nulls at any depth');
  const orders = [
    { c: 1, a: 2, d: 4, b: 3 },
    { b: 3, d: 4, c: 1, a: 2 },
    { a: 2, b: 3, c: 1, d: 4 },
    { d: 4, c: 1, b: 3, a: 2 },
  ];
  t.same(new Set(orders.map((args) => fingerprint('x', args))).size, 1, 'four members in any order');
});
