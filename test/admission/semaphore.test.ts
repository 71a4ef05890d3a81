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
