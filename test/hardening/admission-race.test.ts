// Faults, a race: a slot released at the very moment a waiter's admission wait expires. fast-check's
// scheduler drives the Admission class through every order of arrivals, releases, aborts and
// timer expiries (the wait timer is faked, so "the same moment" is just another order): never more
// slots out than the limit, never a lost slot, never a permit for a client that gave up. Then the
// same race over HTTP, with holders that release exactly when the waiters' wait runs out.
import fc from 'fast-check';
import t from 'tap';
import { Admission, type Permit } from '../../src/admission/semaphore.ts';
import { HOLD, HOLD_COUNTERS_BYTES, serveHoldCounters } from '../fixtures/hardening-commands.ts';
import { TINY_GAME, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { HARDENING_COMMANDS, startQuietBridge } from './helpers.ts';

t.setTimeout(120_000);

/** The admission wait of the model; only timers of this length are faked. */
const WAIT_MS = 4321;

interface FakeTimer {
  fire: () => void;
  cleared: boolean;
}

/** Fakes the timers Admission creates (by their length), passing every other timer through. */
function fakeAdmissionTimers(onCreate: (timer: FakeTimer) => void): () => void {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const fakes = new WeakSet<object>();
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
    if (ms !== WAIT_MS) return realSet(callback, ms, ...(rest as []));
    const timer: FakeTimer & { unref(): FakeTimer; ref(): FakeTimer } = {
      cleared: false,
      fire: () => {
        if (!timer.cleared) {
          timer.cleared = true;
          callback();
        }
      },
      unref: () => timer,
      ref: () => timer,
    };
    fakes.add(timer);
    onCreate(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: unknown) => {
    if (handle && typeof handle === 'object' && fakes.has(handle)) (handle as FakeTimer).cleared = true;
    else realClear(handle as NodeJS.Timeout);
  }) as typeof clearTimeout;
  return () => {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  };
}

t.test('Admission under every interleaving of release, expiry and abort', async (t) => {
  const client = fc.record({ aborts: fc.boolean(), releasesTwice: fc.boolean() });
  const seen = { expiredWhileWaiting: 0, handedOverAfterWaiting: 0, abortedWhileWaiting: 0 };
  const property = fc.asyncProperty(
    fc.scheduler(),
    fc.integer({ min: 1, max: 3 }),
    fc.array(client, { minLength: 1, maxLength: 8 }),
    async (s, limit, clients) => {
      const violations: string[] = [];
      const restore = fakeAdmissionTimers((timer) => void s.schedule(Promise.resolve('expire'), 'the wait expires').then(() => timer.fire()));
      try {
        const admission = new Admission(limit, WAIT_MS);
        let held = 0;
        const check = (when: string) => {
          if (admission.inUse > limit) violations.push(`${when}: ${admission.inUse} slots out, limit ${limit}`);
          if (held > admission.inUse) violations.push(`${when}: clients hold ${held} permits, admission counts ${admission.inUse}`);
        };
        const runs = clients.map(async (spec, i) => {
          await s.schedule(Promise.resolve(), `client ${i} arrives`);
          const controller = spec.aborts ? new AbortController() : undefined;
          let gaveUp = false;
          if (controller) {
            void s.schedule(Promise.resolve(), `client ${i} goes away`).then(() => {
              gaveUp = true;
              controller.abort();
            });
          }
          const pending = admission.acquire(controller?.signal);
          const waited = pending instanceof Promise;
          const permit: Permit | null = await pending;
          check(`client ${i} answered`);
          if (waited) {
            if (permit) seen.handedOverAfterWaiting++;
            else if (gaveUp) seen.abortedWhileWaiting++;
            else seen.expiredWhileWaiting++;
          }
          if (permit === null) return 'refused';
          if (gaveUp) violations.push(`client ${i} got a slot after it went away`);
          held++;
          check(`client ${i} holds`);
          await s.schedule(Promise.resolve(), `client ${i} releases`);
          held--;
          permit.release();
          if (spec.releasesTwice) permit.release();
          check(`client ${i} released`);
          return 'served';
        });
        // Run the scheduled steps one at a time in fast-check's order, letting each continuation
        // schedule its next step, until every client is done (bounded: a stuck client is a failure).
        let done = false;
        const all = Promise.all(runs).then((outcomes) => ((done = true), outcomes));
        for (let step = 0; step < 10_000 && !done; step++) {
          if (s.count() > 0) await s.waitOne();
          else await new Promise((resolve) => setImmediate(resolve));
        }
        if (!done)
          throw new Error(
            `stuck: a client never got an answer\n${s
              .report()
              .map((r) => r.label)
              .join(' → ')}`,
          );
        const outcomes = await all;
        if (admission.inUse !== 0) violations.push(`${admission.inUse} slots lost at the end`);
        if (admission.waiting !== 0) violations.push(`${admission.waiting} waiters left at the end`);
        if (outcomes.length !== clients.length) violations.push('a client never got an answer');
        if (!clients.some((c) => c.aborts) && outcomes.filter((o) => o === 'served').length < Math.min(limit, clients.length))
          violations.push('fewer clients served than free slots');
      } finally {
        restore();
      }
      if (violations.length > 0)
        throw new Error(
          `${violations.join('; ')}\n${s
            .report()
            .map((r) => r.label)
            .join(' → ')}`,
        );
    },
  );
  const result = await fc.check(property, { numRuns: 3000 });
  t.notOk(result.failed, (result.failed ? fc.defaultReportMessage(result) : undefined) ?? '3,000 interleavings, no violation');
  t.comment(`waiters: ${JSON.stringify(seen)}`);
  t.ok(seen.expiredWhileWaiting > 0 && seen.handedOverAfterWaiting > 0 && seen.abortedWhileWaiting > 0, 'every way out of the wait was explored');
});

t.test('over HTTP: holders release as the waiters give up; never above the limit, never a lost or phantom slot', async (t) => {
  const SLOTS = 2;
  const WAIT = 300;
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: SLOTS });
  const hold = new SharedArrayBuffer(HOLD_COUNTERS_BYTES);
  const held = new Int32Array(hold);
  t.teardown(serveHoldCounters(hold));
  const b = await startQuietBridge(t, {
    configDir: dir,
    game: TINY_GAME,
    commandModules: [HARDENING_COMMANDS],
    poolThreads: SLOTS + 3,
    timings: { admissionWaitMs: WAIT },
  });
  const send = async (ms: number) => {
    const response = await fetch(`${b.url}/cmd`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hold', args: { ms } }),
    });
    const body = (await response.json()) as { error?: { code: string } };
    return response.status === 200 ? 'served' : (body.error?.code ?? String(response.status));
  };
  await Promise.all(Array.from({ length: SLOTS + 3 }, () => send(1))); // warm every worker
  await until(() => b.bridge.stats().slotsInUse === 0, 10_000, 'the warm-up to end');
  const totals = new Map<string, number>();
  const wrongRounds: string[] = [];
  for (let round = 0; round < 24; round++) {
    const runsBefore = Atomics.load(held, HOLD.runs);
    const jitter = (round % 9) * 8 - 32; // the holders end from 32 ms before to 32 ms after the wait
    const holders = Array.from({ length: SLOTS }, () => send(WAIT + jitter));
    await until(() => b.bridge.stats().slotsInUse === SLOTS, 5000, 'the holders to take the slots');
    const waiters = Array.from({ length: 3 }, () => send(5));
    const outcomes = await Promise.all([...holders, ...waiters]);
    await until(() => b.bridge.stats().slotsInUse === 0 && b.bridge.stats().waiting === 0, 10_000, 'every slot back');
    for (const outcome of outcomes.slice(SLOTS)) totals.set(outcome, (totals.get(outcome) ?? 0) + 1);
    const served = outcomes.filter((o) => o === 'served').length;
    const ran = Atomics.load(held, HOLD.runs) - runsBefore;
    if (ran !== served || outcomes.some((o) => o !== 'served' && o !== 'BUSY')) wrongRounds.push(`round ${round}: ${ran} ran, answers ${outcomes.join(',')}`);
  }
  t.comment(`waiters: ${JSON.stringify(Object.fromEntries(totals))}`);
  t.same(wrongRounds, [], 'in every round each command that ran was answered 200 and each BUSY never ran');
  t.ok(Atomics.load(held, HOLD.maxInFlight) <= SLOTS, `never more in flight than the limit (max ${Atomics.load(held, HOLD.maxInFlight)})`);
  t.equal(b.bridge.stats().slotsInUse, 0, 'no lost slot');
});
