// The kept answers of Idempotency-Key requests (decisions §8), without a bridge.
import t from 'tap';
import { keyProblem, fingerprint } from '../../src/idempotency/key.ts';
import { IdempotencyStore, type KeptAnswer } from '../../src/idempotency/store.ts';

const answer = (body: string, status = 200): KeptAnswer => ({ status, body, code: null });

t.test('first runs, the same request replays, another request under the key conflicts, scopes are apart', async (t) => {
  const store = new IdempotencyStore();
  const first = store.claim('agent-a', 'k', 'print-1');
  t.equal(first.kind, 'run');
  if (first.kind === 'run') first.finish(answer('one'));
  t.match(store.claim('agent-a', 'k', 'print-1'), { kind: 'replay', answer: { body: 'one' } });
  t.same(store.claim('agent-a', 'k', 'print-2'), { kind: 'conflict' });
  t.equal(store.claim('agent-b', 'k', 'print-2').kind, 'run', 'another credential has its own keys');
  t.equal(store.replays, 1);
});

t.test('a retry during the first run waits for its answer; an answer that means nothing ran is not kept', async (t) => {
  const store = new IdempotencyStore();
  const first = store.claim('a', 'k', 'p');
  const retry = store.claim('a', 'k', 'p');
  t.equal(retry.kind, 'wait');
  if (first.kind !== 'run' || retry.kind !== 'wait') return;
  first.finish(answer('done'));
  t.match(await retry.answer, { body: 'done' });
  t.equal(store.replays, 1);

  const again = store.claim('a', 'k2', 'p');
  const waiting = store.claim('a', 'k2', 'p');
  if (again.kind !== 'run' || waiting.kind !== 'wait') return t.fail('run then wait');
  again.finish(null);
  t.equal(await waiting.answer, null, 'the waiter learns nothing ran, and runs itself');
  t.equal(store.claim('a', 'k2', 'p').kind, 'run');
  t.equal(store.replays, 1);
});

t.test('answers expire after the ttl; at most maxKeys, oldest answer out first, a running key never', async (t) => {
  let now = 0;
  const store = new IdempotencyStore({ maxKeys: 3, ttlMs: 1000, now: () => now });
  const running = store.claim('a', 'running', 'p');
  for (const key of ['k1', 'k2', 'k3']) {
    const claim = store.claim('a', key, 'p');
    if (claim.kind === 'run') claim.finish(answer(key));
  }
  t.equal(store.size, 3, 'bounded');
  t.equal(store.claim('a', 'k1', 'p').kind, 'run', 'the oldest answer went first');
  t.equal(store.claim('a', 'running', 'p').kind, 'wait', 'the running key stayed');
  now = 999;
  t.equal(store.claim('a', 'k3', 'p').kind, 'replay');
  now = 1001;
  t.equal(store.claim('a', 'k3', 'p').kind, 'run', 'expired after the ttl');
  if (running.kind === 'run') running.finish(answer('late'));
  t.equal(store.claim('a', 'running', 'p').kind, 'replay', 'kept from when it finished');
});

t.test('key syntax and fingerprints', async (t) => {
  t.equal(keyProblem('6f1c2a9e-8d7b-4c3a-9e2f-1a2b3c4d5e6f'), null);
  t.equal(keyProblem('x'.repeat(255)), null);
  t.match(keyProblem(''), /1 to 255 printable ASCII/);
  t.match(keyProblem('x'.repeat(256)), /got 256 characters/);
  t.match(keyProblem('two words'), /without spaces \(got 'two words'\)/);
  t.match(keyProblem('tab\there'), /got 'tab\?here'/);
  t.match(keyProblem('é'), /printable ASCII/);
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
});
