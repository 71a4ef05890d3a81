// Direct unit cases for the waiter paths of the admission semaphore that were only exercised over
// sockets (npm run mutate runs this file for every mutant of src/admission, so it stays
// fast): the client going away (a signal, or a function giving one, as the HTTP routes pass),
// listeners left on a request's signal, and close() with several agents waiting.
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { Admission, type Permit } from '../../src/admission/semaphore.ts';

const waitFor = (p: Permit | null | Promise<Permit | null>) => p as Promise<Permit | null>;
const flush = () => new Promise((resolve) => setImmediate(resolve));

// A long-running bridge must not keep what a finished request left behind: tracked through the
// request's signal, which a waiter references (WeakRefs are cleared only after the current job).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
async function collected(refs: ReadonlyArray<WeakRef<object>>): Promise<number> {
  // Two rounds: an aborted signal's own bookkeeping is let go by the first.
  for (let round = 0; round < 2; round++) {
    await flush();
    gc();
  }
  return refs.filter((ref) => ref.deref() === undefined).length;
}
function trackedSignal(refs: Array<WeakRef<object>>): () => AbortSignal {
  return () => {
    const signal = new AbortController().signal;
    refs.push(new WeakRef(signal));
    return signal;
  };
}

t.test('a request granted at once never builds its signal; one that waits builds it once', async (t) => {
  const admission = new Admission(1, 10_000);
  let built = 0;
  const lazy = () => (built++, new AbortController().signal);
  const first = admission.acquire(lazy);
  t.ok(first && !(first instanceof Promise), 'granted synchronously');
  t.equal(built, 0, 'the fast path asks for no signal');
  const second = waitFor(admission.acquire(lazy));
  t.equal(built, 1, 'a waiter asks for its signal once');
  (first as Permit).release();
  const permit = await second;
  t.ok(permit);
  permit!.release();
  t.equal(admission.inUse, 0);
});

t.test("a request's signal (an object's `signal`, as the routes pass c.req.raw) is read only by a waiter, and heard", async (t) => {
  const admission = new Admission(1, 10_000);
  const client = new AbortController();
  let reads = 0;
  const request = {
    get signal() {
      reads++;
      return client.signal;
    },
  };
  const first = admission.acquire(request);
  t.ok(first && !(first instanceof Promise), 'granted synchronously');
  t.equal(reads, 0, 'the fast path reads no signal');
  const second = waitFor(admission.acquire(request));
  t.equal(reads, 1, 'a waiter reads it once');
  client.abort();
  t.equal(await second, null, 'its client left: no slot');
  (first as Permit).release();
  t.equal(admission.inUse, 0);
});

t.test('heldBy: an agent that never asked holds nothing', async (t) => {
  const admission = new Admission(1, 10_000);
  t.equal(admission.heldBy('nobody'), 0);
});

t.test('ties between agents holding as many slots: the oldest waiter first, whenever each agent began waiting', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire(undefined, 'x') as Permit;
  const order: string[] = [];
  const track = (label: string, agent: string) => waitFor(admission.acquire(undefined, agent)).then((p) => (order.push(label), p));
  const a1 = track('a1', 'a');
  const b1 = track('b1', 'b');
  const a2 = track('a2', 'a');
  held.release();
  (await a1)!.release(); // a and b hold 0 again: b1 is older than a2, though a began waiting first
  (await b1)!.release();
  (await a2)!.release();
  t.same(order, ['a1', 'b1', 'a2']);
  t.equal(admission.inUse, 0);
});

t.test('the fewest slots wins over an older waiter', async (t) => {
  const admission = new Admission(2, 10_000);
  const a = admission.acquire(undefined, 'a') as Permit;
  const x = admission.acquire(undefined, 'x') as Permit;
  const order: string[] = [];
  const track = (label: string, agent: string) => waitFor(admission.acquire(undefined, agent)).then((p) => (order.push(label), p));
  const b1 = track('b1', 'b');
  const a1 = track('a1', 'a');
  const b2 = track('b2', 'b');
  x.release(); // b holds 0, a holds 1: b1
  (await b1)!.release(); // b holds 0 again, a 1: b2, though a1 is older
  const second = await b2;
  t.same(order, ['b1', 'b2']);
  a.release();
  (await a1)!.release();
  second!.release();
  t.same(order, ['b1', 'b2', 'a1']);
  t.equal(admission.inUse, 0);
});

t.test('waiters that left are let go at once, even while no slot frees', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire(undefined, 'a') as Permit;
  const refs: Array<WeakRef<object>> = [];
  // Built outside this async function, whose suspended frame could keep the last one alive.
  const leave = () => {
    const controllers = Array.from({ length: 3 }, () => new AbortController());
    const gone = controllers.map((c) => {
      refs.push(new WeakRef(c.signal));
      return waitFor(admission.acquire(c.signal, 'b'));
    });
    for (const c of controllers) c.abort();
    return Promise.all(gone);
  };
  t.same(await leave(), [null, null, null]);
  t.equal(await collected(refs), 3, "no gone waiter's request is kept");
  held.release();
  t.equal(admission.inUse, 0);
});

t.test('a waiter whose client already left is refused at once and queues nothing', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire() as Permit;
  const aborted = new AbortController();
  aborted.abort();
  t.equal(
    admission.acquire(() => aborted.signal),
    null,
    'a gone client (signal built lazily) is refused without waiting',
  );
  t.equal(admission.acquire(aborted.signal), null, 'and so is one passing its signal');
  t.equal(admission.waiting, 0, 'nothing queued');
  held.release();
  t.equal(admission.inUse, 0, 'the freed slot went back to the pool');
});

t.test('aborting a waiter answers it null at once and hands the slot on past it', async (t) => {
  const admission = new Admission(1, 10_000);
  const held = admission.acquire() as Permit;
  const gone = new AbortController();
  const order: string[] = [];
  const first = waitFor(admission.acquire(() => gone.signal, 'a')).then((p) => (order.push('first'), p));
  const second = waitFor(admission.acquire(undefined, 'b')).then((p) => (order.push('second'), p));
  t.equal(admission.waiting, 2);
  gone.abort();
  await flush();
  t.same(order, ['first'], 'the aborted waiter is answered before any slot is free');
  t.equal(await first, null);
  t.equal(admission.waiting, 1);
  held.release();
  const next = await second;
  t.ok(next, 'the slot went to the waiter behind it');
  t.equal(admission.heldBy('a'), 0, 'the gone client holds nothing');
  next!.release();
  t.equal(admission.inUse, 0);
});

t.test("a settled waiter leaves no listener on its request's signal", async (t) => {
  const admission = new Admission(1, 40);
  const held = admission.acquire() as Permit;
  const granted = new AbortController();
  const timedOut = new AbortController();
  const closed = new AbortController();
  const grantedWait = waitFor(admission.acquire(granted.signal));
  const timedOutWait = waitFor(admission.acquire(timedOut.signal));
  t.equal(getEventListeners(granted.signal, 'abort').length, 1, 'a waiter listens for its client leaving');
  held.release();
  const permit = await grantedWait;
  t.ok(permit);
  t.equal(getEventListeners(granted.signal, 'abort').length, 0, 'granted: listener removed');
  t.equal(await timedOutWait, null);
  t.equal(getEventListeners(timedOut.signal, 'abort').length, 0, 'timed out: listener removed');
  const closedWait = waitFor(admission.acquire(closed.signal));
  admission.close();
  t.equal(await closedWait, null);
  t.equal(getEventListeners(closed.signal, 'abort').length, 0, 'answered by close: listener removed');
  granted.abort();
  permit!.release();
  t.equal(admission.inUse, 0, 'an abort after the grant changes nothing');
});

t.test('close answers every waiting agent at once, each of its waiters', async (t) => {
  const admission = new Admission(2, 10_000);
  const held = [admission.acquire(undefined, 'x') as Permit, admission.acquire(undefined, 'y') as Permit];
  const waiters = [
    admission.acquire(undefined, 'a'),
    admission.acquire(undefined, 'a'),
    admission.acquire(undefined, 'b'),
    admission.acquire(undefined, 'c'),
    admission.acquire(undefined, 'c'),
    admission.acquire(undefined, 'c'),
  ].map(waitFor);
  t.equal(admission.waiting, 6);
  admission.close();
  t.equal(admission.waiting, 0, 'no one left waiting, synchronously');
  const answered: Array<Permit | null | 'pending'> = await Promise.race([Promise.all(waiters), flush().then(() => waiters.map(() => 'pending' as const))]);
  t.same(answered, [null, null, null, null, null, null], 'every waiter of every agent answered null at once');
  t.equal(admission.acquire(undefined, 'z'), null, 'no one admitted after close');
  for (const permit of held) permit.release();
  t.equal(admission.inUse, 0, 'slots held at close still come back');
  t.equal(admission.heldBy('a') + admission.heldBy('b') + admission.heldBy('c'), 0);
});

t.test('thousands of waiters of one agent are served in order, and the served ones are let go', async (t) => {
  const admission = new Admission(1, 60_000);
  const first = admission.acquire(undefined, 'a') as Permit;
  const total = 4000;
  const served: number[] = [];
  const refs: Array<WeakRef<object>> = [];
  const signal = trackedSignal(refs);
  const waiters = Array.from({ length: total }, (_, i) =>
    waitFor(admission.acquire(signal, 'a')).then((permit) => {
      served.push(i);
      return permit;
    }),
  );
  let permit: Permit | null = first;
  let miscounted = 0;
  for (let i = 0; i < total; i++) {
    permit!.release();
    permit = await waiters[i]!;
    if (admission.waiting !== total - i - 1) miscounted++;
    if (i === 2500) {
      // Over half the queue served: the served waiters are not all kept while the rest wait.
      const freed = await collected(refs.slice(0, 2500));
      t.ok(freed >= 2000, `at least 2,000 of the first 2,500 served waiters let go (${freed})`);
    }
  }
  t.equal(miscounted, 0, 'each hand-over served exactly one waiter');
  t.same(
    served,
    Array.from({ length: total }, (_, i) => i),
    'FIFO throughout',
  );
  t.equal(admission.waiting, 0);
  permit!.release();
  t.equal(admission.inUse, 0);
});
