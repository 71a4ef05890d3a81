import t from 'tap';
import { Admission, type Permit } from '../../src/admission/semaphore.ts';

t.test('slots up to the limit, then FIFO waiting', async (t) => {
  const admission = new Admission(2, 10_000);
  const a = admission.acquire() as Permit;
  const b = admission.acquire() as Permit;
  t.ok(a && b);
  t.equal(admission.inUse, 2);
  const order: string[] = [];
  const c = (admission.acquire() as Promise<Permit | null>).then((p) => (order.push('c'), p));
  const d = (admission.acquire() as Promise<Permit | null>).then((p) => (order.push('d'), p));
  t.equal(admission.waiting, 2);
  a.release();
  const pc = await c;
  t.ok(pc, 'the oldest waiter gets the slot');
  t.equal(admission.inUse, 2, 'a handed-over slot is never free in between');
  b.release();
  const pd = await d;
  t.same(order, ['c', 'd']);
  pc!.release();
  pd!.release();
  t.equal(admission.inUse, 0);
});

t.test('release is idempotent: a slot is returned exactly once', async (t) => {
  const admission = new Admission(1, 10_000);
  const a = admission.acquire() as Permit;
  a.release();
  a.release();
  a.release();
  t.equal(admission.inUse, 0);
  const b = admission.acquire() as Permit;
  t.ok(b);
  t.equal(admission.inUse, 1);
  a.release();
  t.equal(admission.inUse, 1, "a stale permit cannot free someone else's slot");
  b.release();
  t.equal(admission.inUse, 0);
});

t.test('waiting ends with null after the wait', async (t) => {
  const admission = new Admission(1, 50);
  const held = admission.acquire() as Permit;
  const started = Date.now();
  const late = await admission.acquire();
  t.equal(late, null);
  t.ok(Date.now() - started >= 45, 'waited the full wait');
  t.equal(admission.waiting, 0);
  held.release();
  t.equal(admission.inUse, 0, 'the timed-out waiter took nothing');
});

t.test('a request that got no slot is BUSY, naming the wait in seconds', async (t) => {
  t.strictSame(new Admission(1, 5000).refusal(), {
    ok: false,
    code: 'BUSY',
    message: 'all admission slots stayed taken for 5 s; nothing reached the world, retry',
  });
  t.match(new Admission(1, 250).refusal().message, /for 0\.25 s;/);
});

t.test('an aborted waiter never takes a slot later', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire() as Permit;
  const controller = new AbortController();
  const waiting = admission.acquire(controller.signal);
  controller.abort();
  t.equal(await waiting, null);
  held.release();
  t.equal(admission.inUse, 0, 'the slot went back to the pool, not to the gone client');
  t.equal(admission.acquire(AbortSignal.abort()), null, 'an already-aborted request is refused at once');
  t.equal(admission.inUse, 0);
});

t.test('a freed slot skips cancelled waiters and fast paths resume', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire() as Permit;
  const controllers = [new AbortController(), new AbortController()];
  const gone = controllers.map((c) => admission.acquire(c.signal));
  for (const c of controllers) c.abort();
  await Promise.all(gone);
  held.release();
  t.equal(admission.inUse, 0);
  const next = admission.acquire();
  t.ok(next && !(next instanceof Promise), 'granted synchronously when a slot is free');
});

t.test('close answers every waiter at once and refuses new ones', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire() as Permit;
  const waiters = [admission.acquire(), admission.acquire()];
  admission.close();
  t.same(await Promise.all(waiters), [null, null]);
  t.equal(admission.acquire(), null);
  held.release();
  t.equal(admission.inUse, 0);
});

t.test('never more in flight than the limit under churn', async (t) => {
  const admission = new Admission(3, 1_000);
  let inFlight = 0;
  let peak = 0;
  await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      const permit = await admission.acquire();
      if (!permit) return;
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, i % 3));
      inFlight--;
      permit.release();
    }),
  );
  t.equal(peak, 3);
  t.equal(admission.inUse, 0);
});

// decisions §10: fair admission between agents.

const waitFor = (p: Permit | null | Promise<Permit | null>) => p as Promise<Permit | null>;

t.test('a freed slot goes to the waiting agent holding the fewest slots, FIFO within an agent', async (t) => {
  const admission = new Admission(2, 10_000);
  const greedy = [admission.acquire(undefined, 'g') as Permit, admission.acquire(undefined, 'g') as Permit];
  const order: string[] = [];
  const track = (label: string, p: Permit | null | Promise<Permit | null>) => waitFor(p).then((permit) => (order.push(label), permit));
  const g3 = track('g3', admission.acquire(undefined, 'g'));
  const g4 = track('g4', admission.acquire(undefined, 'g'));
  const p1 = track('p1', admission.acquire(undefined, 'p'));
  t.equal(admission.waiting, 3);
  greedy[0]!.release();
  const polite = await p1;
  t.same(order, ['p1'], 'the polite agent (0 held) overtakes the greedy queue (1 held)');
  t.equal(admission.heldBy('p'), 1);
  greedy[1]!.release();
  const third = await g3;
  t.same(order, ['p1', 'g3'], 'then FIFO within the greedy agent');
  polite!.release();
  const fourth = await g4;
  t.same(order, ['p1', 'g3', 'g4']);
  third!.release();
  fourth!.release();
  t.equal(admission.inUse, 0);
  t.equal(admission.heldBy('g'), 0);
});

t.test('ties go to the agent whose oldest waiter came first', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire(undefined, 'x') as Permit;
  const order: string[] = [];
  const b = waitFor(admission.acquire(undefined, 'b')).then((p) => (order.push('b'), p));
  const a = waitFor(admission.acquire(undefined, 'a')).then((p) => (order.push('a'), p));
  held.release();
  (await b)!.release();
  (await a)!.release();
  t.same(order, ['b', 'a']);
  t.equal(admission.inUse, 0);
});

t.test('max_slots: an agent at its cap waits while slots are free, then gets BUSY', async (t) => {
  const admission = new Admission(4, 60);
  admission.setMaxSlots(new Map([['capped', 1]]));
  const first = admission.acquire(undefined, 'capped') as Permit;
  t.ok(first && !(first instanceof Promise));
  t.equal(await admission.acquire(undefined, 'capped'), null, 'the second waits the full wait, then BUSY');
  const other = admission.acquire(undefined, 'free');
  t.ok(other && !(other instanceof Promise), 'another agent still gets a free slot at once');
  const waiting = waitFor(admission.acquire(undefined, 'capped'));
  first.release();
  const next = await waiting;
  t.ok(next, 'the waiter takes its own freed share');
  next!.release();
  (other as Permit).release();
  t.equal(admission.inUse, 0);
});

t.test('a raised cap admits waiting requests at once; a lowered one lets held slots finish', async (t) => {
  const admission = new Admission(4, 10_000);
  admission.setMaxSlots(new Map([['a', 1]]));
  const held = admission.acquire(undefined, 'a') as Permit;
  const waiting = waitFor(admission.acquire(undefined, 'a'));
  t.equal(admission.waiting, 1);
  admission.setMaxSlots(new Map([['a', 2]]));
  const second = await waiting;
  t.ok(second, 'admitted by the reload');
  admission.setMaxSlots(new Map([['a', 1]]));
  t.equal(admission.heldBy('a'), 2, 'slots above the new cap are not taken back');
  const third = waitFor(admission.acquire(undefined, 'a'));
  held.release();
  t.equal(admission.waiting, 1, 'still above the cap after one release');
  second!.release();
  (await third)!.release();
  t.equal(admission.inUse, 0);
});

/** A model run: random acquires by several agents, releases, aborts, cap changes and a close. */
t.test('property: exact slot accounting and the fair rule under random churn', async (t) => {
  const fc = (await import('fast-check')).default;
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  const op = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('acquire' as const), agent: fc.integer({ min: 0, max: 3 }) }), weight: 5 },
    { arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }), weight: 1 },
    {
      arbitrary: fc.record({ kind: fc.constant('caps' as const), caps: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }) }),
      weight: 1,
    },
  );
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), fc.boolean(), async (limit, ops, closeAtEnd) => {
      const admission = new Admission(limit, 60_000);
      let caps = new Map<string, number>();
      const held: Array<{ agent: string; permit: Permit }> = [];
      const waiting: Array<{ agent: string; controller: AbortController; order: number; settled: boolean }> = [];
      let order = 0;
      const heldBy = (agent: string) => held.filter((h) => h.agent === agent).length;
      const capOf = (agent: string) => Math.min(caps.get(agent) ?? limit, limit);
      const check = () => {
        if (admission.inUse !== held.length) throw new Error(`inUse ${admission.inUse} but ${held.length} permits held`);
        if (held.length > limit) throw new Error('more held than the limit');
        const live = waiting.filter((w) => !w.settled);
        if (admission.waiting !== live.length) throw new Error(`waiting ${admission.waiting} but ${live.length} live`);
        // Work-conserving: no free slot while an agent under its cap waits.
        if (held.length < limit && live.some((w) => heldBy(w.agent) < capOf(w.agent))) throw new Error('a slot is free while an eligible agent waits');
      };
      for (const step of ops) {
        if (step.kind === 'acquire') {
          const agent = `a${step.agent}`;
          const controller = new AbortController();
          const result = admission.acquire(controller.signal, agent);
          if (result instanceof Promise) {
            const entry = { agent, controller, order: order++, settled: false };
            waiting.push(entry);
            void result.then((permit) => {
              entry.settled = true;
              if (permit) held.push({ agent, permit });
            });
          } else if (result) held.push({ agent, permit: result });
        } else if (step.kind === 'release' && held.length > 0) {
          const [gone] = held.splice(step.pick % held.length, 1);
          // Who may get the slot by the fair rule: among eligible waiting agents, the fewest held.
          const live = waiting.filter((w) => !w.settled);
          // Holdings once the slot is back (`gone` is out of `held` already).
          const before = new Map(live.map((w) => [w.agent, heldBy(w.agent)]));
          gone!.permit.release();
          gone!.permit.release(); // idempotent
          await flush();
          const granted = live.filter((w) => w.settled);
          if (granted.length > 1) throw new Error('one release admitted two waiters');
          if (granted.length === 1) {
            const winner = granted[0]!;
            const eligible = live.filter((w) => before.get(w.agent)! < capOf(w.agent));
            const fewest = Math.min(...eligible.map((w) => before.get(w.agent)!));
            if (before.get(winner.agent) !== fewest) throw new Error('the slot went to an agent not holding the fewest');
            const firstOfAgent = live.find((w) => w.agent === winner.agent)!;
            if (firstOfAgent !== winner) throw new Error('not FIFO within the agent');
            const oldestTied = eligible.filter((w) => before.get(w.agent) === fewest).sort((x, y) => x.order - y.order)[0]!;
            if (oldestTied.agent !== winner.agent) throw new Error('tie not broken by the oldest waiter');
          }
        } else if (step.kind === 'abort') {
          const live = waiting.filter((w) => !w.settled);
          if (live.length > 0) live[step.pick % live.length]!.controller.abort();
        } else if (step.kind === 'caps') {
          caps = new Map(step.caps.map((cap, i) => [`a${i}`, cap]));
          admission.setMaxSlots(caps);
        }
        await flush();
        check();
      }
      if (closeAtEnd) {
        admission.close();
        await flush();
        if (admission.waiting !== 0) throw new Error('close left waiters');
      }
      for (const w of waiting) w.controller.abort();
      await flush();
      for (const h of held.splice(0)) h.permit.release();
      if (admission.inUse !== 0) throw new Error(`inUse ${admission.inUse} after every permit went back`);
      if (admission.waiting !== 0) throw new Error('waiters left');
    }),
    { numRuns: 150 },
  );
  t.pass('no permit lost or doubled; every hand-over followed the fair rule');
});

t.test('timeouts among several agents give back nothing they did not take', async (t) => {
  const admission = new Admission(2, 30);
  const a = admission.acquire(undefined, 'a') as Permit;
  const b = admission.acquire(undefined, 'b') as Permit;
  const late = await Promise.all([admission.acquire(undefined, 'a'), admission.acquire(undefined, 'c'), admission.acquire(undefined, 'c')]);
  t.same(late, [null, null, null]);
  t.equal(admission.inUse, 2);
  a.release();
  b.release();
  t.equal(admission.inUse, 0);
  t.equal(admission.heldBy('a') + admission.heldBy('b') + admission.heldBy('c'), 0);
});
