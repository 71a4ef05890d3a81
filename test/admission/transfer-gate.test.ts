// decisions §13, the transfer gate on its own, on a clock the test moves: an agent's large bodies
// are read one at a time in arrival order; each large body read or large answer built rests the
// agent for its bytes at the rate, and every request of a resting agent waits the rest out; other
// agents never wait; a release is idempotent, and nothing is left behind once done.
import t from 'tap';
import { TransferGate, type GateClock } from '../../src/admission/transfer-gate.ts';

const MIB = 1024 * 1024;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A clock that moves only when the test says; sleepers wake once it has passed their end. */
function testClock() {
  let now = 0;
  const sleepers: { until: number; wake: () => void }[] = [];
  const clock: GateClock & { advance(ms: number): Promise<void>; slept: number[] } = {
    slept: [],
    now: () => now,
    sleep(ms) {
      clock.slept.push(ms);
      return new Promise((wake) => sleepers.push({ until: now + ms, wake }));
    },
    async advance(ms) {
      now += ms;
      for (const sleeper of sleepers.splice(0)) {
        if (sleeper.until <= now) sleeper.wake();
        else sleepers.push(sleeper);
      }
      await tick();
    },
  };
  return clock;
}

t.test('one large body at a time per agent, in order; another agent passes at once', async (t) => {
  const gate = new TransferGate(0);
  const order: string[] = [];
  const first = (await gate.enter('ares', true))!;
  const second = gate.enter('ares', true)!.then((release) => {
    order.push('ares 2');
    return release!;
  });
  const third = gate.enter('ares', true)!.then((release) => {
    order.push('ares 3');
    return release!;
  });
  const other = (await gate.enter('athena', true))!;
  order.push('athena');
  await tick();
  t.same(order, ['athena'], "ares's later bodies wait for its first; athena's does not");
  t.equal(gate.busyAgents, 2);
  other(0);
  first(0);
  first(0); // idempotent: it does not let the third in early
  const releaseSecond = await second;
  await tick();
  t.same(order, ['athena', 'ares 2']);
  releaseSecond(0);
  (await third)(0);
  t.same(order, ['athena', 'ares 2', 'ares 3']);
  t.equal(gate.busyAgents, 0, 'nothing is left behind');
});

t.test('a body that enters while the second holds the turn waits for the second', async (t) => {
  const gate = new TransferGate(0);
  const first = (await gate.enter('ares', true))!;
  const second = gate.enter('ares', true)!;
  first(0);
  const releaseSecond = (await second)!;
  let thirdIn = false;
  const third = gate.enter('ares', true)!.then((release) => {
    thirdIn = true;
    return release!;
  });
  await tick();
  t.notOk(thirdIn, 'the queue did not forget the second when the first left');
  releaseSecond(0);
  (await third)(0);
  t.ok(thirdIn);
  t.equal(gate.busyAgents, 0);
});

t.test('a release out of order does not free the agent early', async (t) => {
  const gate = new TransferGate(0);
  const first = (await gate.enter('ares', true))!;
  let secondIn = false;
  const second = gate.enter('ares', true)!.then((release) => {
    secondIn = true;
    return release!;
  });
  await tick();
  t.notOk(secondIn);
  first(0);
  (await second)(0);
  t.ok(secondIn);
  t.equal(gate.busyAgents, 0);
});

t.test('a small body of an agent that does not rest goes at once, with no promise', async (t) => {
  const gate = new TransferGate(62.5, testClock());
  t.equal(gate.enter('ares', false), null);
  gate.charge('athena', MIB);
  t.equal(gate.enter('ares', false), null, "another agent's rest is not ares's");
});

t.test('a large body read rests its agent for its bytes at the rate; others go on', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(62.5, clock);
  const release = (await gate.enter('ares', true))!;
  release(2 * MIB);
  t.equal(gate.restMs('ares'), 125, '2 MiB at 62.5 ms a MiB');
  release(4 * MIB);
  t.equal(gate.restMs('ares'), 125, 'a second release charges nothing');
  t.equal(gate.enter('athena', false), null, 'athena does not wait');

  let smallIn = false;
  let largeIn = false;
  const small = gate.enter('ares', false)!.then((turn) => {
    smallIn = true;
    return turn;
  });
  const large = gate.enter('ares', true)!.then((turn) => {
    largeIn = true;
    return turn!;
  });
  await clock.advance(124);
  t.notOk(smallIn, "ares's small request waits for the rest's end");
  t.notOk(largeIn, 'so does its next large body');
  await clock.advance(1);
  t.equal(await small, null, 'a small turn has nothing to release');
  t.ok(smallIn);
  (await large)(0);
  t.ok(largeIn);
  t.equal(gate.restMs('ares'), 0);
  t.equal(gate.busyAgents, 0, 'nothing is left behind');
});

t.test('charges add up, and a charge made during a rest is slept out too', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(62.5, clock);
  gate.charge('ares', MIB);
  gate.charge('ares', MIB);
  t.equal(gate.restMs('ares'), 125, 'two answers of 1 MiB built back to back rest twice as long');
  let done = false;
  const waiting = gate.enter('ares', false)!.then(() => (done = true));
  await clock.advance(100);
  gate.charge('ares', MIB); // an answer of ares built while its next request waits
  await clock.advance(25);
  t.notOk(done, 'still resting for the charge made meanwhile');
  t.same(clock.slept, [125, 62.5], 'it sleeps again for what is left');
  await clock.advance(62.5);
  await waiting;
  t.ok(done);
});

t.test('a rest that is over leaves no entry behind', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(62.5, clock);
  t.equal(gate.restMs('nobody'), 0, 'an agent that never rested');
  gate.charge('ares', MIB);
  gate.charge('athena', MIB);
  t.equal(gate.busyAgents, 2, 'a resting agent counts as busy');
  await clock.advance(62.5);
  t.equal(gate.restMs('ares'), 0, 'a rest that ends now is over');
  t.equal(gate.restEntries, 1, "and is dropped once found over (athena's is not looked at yet)");
  await clock.advance(10);
  t.equal(gate.restMs('athena'), 0, 'a rest over for a while reads 0, not less');
  t.equal(gate.restEntries, 0);
  t.equal(gate.busyAgents, 0);
  t.equal(gate.enter('ares', false), null);
  gate.charge('ares', MIB);
  t.equal(gate.restMs('ares'), 62.5, 'a charge after a rest that ended counts from now, not from its end');
});

t.test('on the real clock a rest is measured from now, and slept out', async (t) => {
  const gate = new TransferGate(50); // 50 ms a MiB
  gate.charge('ares', 8 * MIB);
  // Read before the rest so a stall between the two lines cannot shorten the wait measured.
  const t0 = performance.now();
  const rest = gate.restMs('ares');
  t.ok(rest > 0 && rest <= 400, `a rest of at most 400 ms has begun (${rest.toFixed(1)})`);
  await gate.enter('ares', false);
  t.ok(performance.now() - t0 >= rest, 'a small request waited for all of it');
  t.equal(gate.restMs('ares'), 0);
});
