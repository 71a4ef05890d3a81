// decisions §13 and §15, the transfer gate on its own, on a clock the test moves: every body and
// answer of an agent moves its rest on by its bytes at the rate, whatever its size; a body is let in
// while the rest runs ahead by at most the allowance (one large body's bytes), else it waits in line;
// so bodies split small and sent together move no more than the rate, the allowance and one body.
// Small transfers add up untimed: a body reads the clock only once they come to 16 KiB. Large
// bodies are also read one at a time, in order, and the small ones go past them (not past one of
// unknown length); other agents never wait; a small body within the rate costs no promise, no
// timer and no clock read; a release is idempotent.
import t from 'tap';
import { TransferGate, type BodyTurnRelease, type GateClock } from '../../src/admission/transfer-gate.ts';
import { LIMITS } from '../../src/limits.ts';

const MIB = 1024 * 1024;
const KIB = 1024;
/** A rest of 1 ms for every KiB: ms and KiB read alike. The allowance is then 64 ms, 16 of them untimed. */
const PACE = 1024;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A clock that moves only when the test says; sleepers wake once it has passed their end. */
function testClock() {
  let now = 0;
  const sleepers: { until: number; wake: () => void }[] = [];
  const clock: GateClock & { advance(ms: number): Promise<void>; late(ms: number): void; slept: number[]; reads: number } = {
    slept: [],
    reads: 0,
    now: () => (clock.reads++, now),
    sleep(ms) {
      clock.slept.push(ms);
      return new Promise((wake) => sleepers.push({ until: now + ms, wake }));
    },
    /** Time passes and no sleeper wakes yet: a timer late on a busy loop. */
    late(ms) {
      now += ms;
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

/** A body's turn, noted in `order` under `name` when it comes. */
function entered(gate: TransferGate, agentId: string, bytes: number, order: string[], name: string): Promise<BodyTurnRelease | null> {
  const turn = gate.enter(agentId, bytes);
  if (turn === null) {
    order.push(name);
    return Promise.resolve(null);
  }
  return turn.then((release) => {
    order.push(name);
    return release;
  });
}

t.test('a small body within the rate goes at once, with no promise and no timer, and is charged', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  t.equal(gate.enter('ares', 10 * KIB), null);
  t.equal(gate.enter('ares', 0), null, 'an empty body is a small one');
  t.equal(gate.restMs('ares'), 10, 'its bytes at the rate');
  t.equal(gate.enter('ares', LIMITS.largeBodyBytes), null, 'a body of exactly 64 KiB is a small one: its rest was 10 ms ahead');
  t.equal(gate.restMs('ares'), 10 + 64);
  gate.charge('athena', 10 * MIB);
  t.equal(gate.enter('hermes', 1), null, "another agent's rest is not hermes's");
  t.same(clock.slept, [], 'no timer');
  t.equal(gate.waiting, 0);
});

t.test('transfers add up untimed: a body reads the clock once they come to what was left of the allowance', async (t) => {
  const clock = testClock();
  await clock.advance(1_000);
  const gate = new TransferGate(PACE, clock);
  t.equal(gate.enter('ares', KIB), null);
  t.equal(clock.reads, 1, 'a new agent reads the clock once: 63 ms of the allowance are left');
  for (let i = 0; i < 62; i++) {
    t.equal(gate.enter('ares', 20), null);
    gate.charge('ares', KIB - 20); // its answer
  }
  t.equal(gate.enter('ares', KIB), null, 'one more body brings them to exactly what was left');
  t.equal(clock.reads, 1, '63 requests and their answers later (63 KiB), no clock read again');
  t.equal(gate.enter('ares', 1), null, 'the next goes past it: it reads the clock, and the rest, exactly 64 ms ahead, lets it in');
  t.equal(clock.reads, 2);
  t.not(gate.enter('ares', 1), null, 'then nothing is left: the next reads the clock and waits');
  t.equal(clock.reads, 4, 'read once to judge it and once more to time its wait');
  await clock.advance(1);
  t.equal(gate.waiting, 0);
});

t.test('untimed answers count against the next body: after a large one it waits', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  t.equal(gate.enter('ares', 1), null);
  gate.charge('ares', 100 * KIB);
  let done = false;
  const turn = gate.enter('ares', 17);
  t.not(turn, null, 'its next body, small as it is, waits');
  const next = turn!.then(() => (done = true));
  await clock.advance(36);
  t.notOk(done, 'while the rest runs more than 64 ms ahead');
  await clock.advance(1);
  await next;
  t.ok(done);
});

t.test('small bodies sent together go while the rest runs ahead by at most the allowance, then at the rate, in order', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  const order: string[] = [];
  const bodies = ['1', '2', '3', '4', '5'].map((name) => entered(gate, 'ares', 32 * KIB, order, name));
  await tick();
  t.same(order, ['1', '2', '3'], 'three go at once: the third found the rest exactly 64 ms ahead');
  t.equal(gate.restMs('ares'), 96);
  t.equal(gate.waiting, 2);
  await clock.advance(31);
  t.same(order, ['1', '2', '3'], 'the fourth waits while the rest runs more than 64 ms ahead');
  await clock.advance(1);
  t.same(order, ['1', '2', '3', '4'], 'and goes when it is 64 ms ahead');
  await clock.advance(31);
  t.same(order, ['1', '2', '3', '4']);
  await clock.advance(1);
  await Promise.all(bodies);
  t.same(order, ['1', '2', '3', '4', '5']);
  t.same(clock.slept, [32, 32], 'one sleep at a time for the agent, each to the first waiter’s turn');
  t.equal(gate.waiting, 0);
});

t.test('a small body behind a waiting one waits in line, even when it alone would fit', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  const order: string[] = [];
  gate.charge('ares', 100 * KIB);
  const first = entered(gate, 'ares', 1, order, 'first');
  const second = entered(gate, 'ares', 1, order, 'second');
  t.equal(gate.enter('athena', 1), null, 'athena is not held');
  await clock.advance(35);
  t.same(order, []);
  await clock.advance(1);
  t.same(order, ['first'], 'the second waited in line behind the first');
  await clock.advance(1);
  await Promise.all([first, second]);
  t.same(order, ['first', 'second'], 'and goes once the first byte is paid for');
});

t.test('a body arriving while a late timer has not yet let the waiting ones in waits behind them', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  const order: string[] = [];
  gate.charge('ares', 100 * KIB);
  const first = entered(gate, 'ares', 1, order, 'first');
  clock.late(100); // the rest is over, but the sleep has not woken the first yet
  const second = entered(gate, 'ares', 1, order, 'second');
  await Promise.all([first, second]);
  t.same(order, ['first', 'second'], 'the second did not go past the first');
});

t.test('over any stretch of time, bodies of any sizes move at most the rate, the allowance and one body', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  const admitted: Array<{ at: number; bytes: number }> = [];
  const reading: Array<{ until: number; bytes: number; release: BodyTurnRelease }> = [];
  const largest = 200 * KIB;
  // A fixed pseudo-random mix: sizes from 1 byte to 200 KiB, known and unknown lengths, arriving in
  // bursts; a large body takes a while to read.
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pending: Array<Promise<void>> = [];
  const admit = (bytes: number) => (release: BodyTurnRelease | null) => {
    admitted.push({ at: clock.now(), bytes });
    if (release) reading.push({ until: clock.now() + Math.floor(random() * 30), bytes, release });
  };
  const step = async (ms: number) => {
    await clock.advance(ms);
    for (const body of reading.splice(0)) {
      if (body.until <= clock.now()) body.release(body.bytes);
      else reading.push(body);
    }
    await tick();
  };
  for (let round = 0; round < 40; round++) {
    for (let i = 0; i < 5; i++) {
      const bytes = Math.max(1, Math.floor(random() ** 3 * largest));
      if (random() < 0.3) gate.charge('ares', Math.floor(random() * 100 * KIB)); // an answer
      const turn = gate.enter('ares', random() < 0.2 ? Number.NaN : bytes);
      if (turn === null) admit(bytes)(null);
      else pending.push(turn.then(admit(bytes)));
    }
    await step(Math.floor(random() * 40));
  }
  while (gate.waiting > 0 || reading.length > 0) await step(5);
  await Promise.all(pending);
  t.equal(admitted.length, 200, 'every body went in the end');
  t.ok(
    admitted.some((body, i) => i > 0 && body.at === admitted[i - 1]!.at),
    'some went together',
  );
  for (let i = 0; i < admitted.length; i++) {
    let bytes = 0;
    for (let j = i; j < admitted.length; j++) {
      bytes += admitted[j]!.bytes;
      const allowed = (admitted[j]!.at - admitted[i]!.at) * KIB + LIMITS.largeBodyBytes + largest;
      if (bytes > allowed) return t.fail(`${bytes} bytes let in from ${admitted[i]!.at} to ${admitted[j]!.at} ms: over ${allowed}`);
    }
  }
  t.pass('no stretch let in more than the rate × its time + 64 KiB + one body');
});

t.test('while a body of unknown length is read, nothing else of its agent is let in', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  const order: string[] = [];
  const chunked = (await entered(gate, 'ares', Number.NaN, order, 'chunked'))!;
  const small = entered(gate, 'ares', 1, order, 'small');
  t.not(gate.enter('ares', 1), null, 'a small body waits while it is read');
  await tick();
  t.same(order, ['chunked'], 'its bytes are not charged yet: the small one waits for them');
  t.equal(gate.enter('athena', 1), null, 'another agent does not');
  chunked(100 * KIB);
  await tick();
  t.same(order, ['chunked'], 'read: 100 KiB charged, over the allowance');
  await clock.advance(35);
  t.same(order, ['chunked']);
  await clock.advance(1);
  await small;
  t.same(order, ['chunked', 'small']);
});

t.test('large bodies are read one at a time per agent, in order; small ones and other agents go past', async (t) => {
  const gate = new TransferGate(0);
  const order: string[] = [];
  const first = (await entered(gate, 'ares', 100 * KIB, order, 'ares 1'))!;
  const second = entered(gate, 'ares', Number.NaN, order, 'ares 2');
  const third = entered(gate, 'ares', Number.NaN, order, 'ares 3');
  const small = entered(gate, 'ares', 10, order, 'ares small');
  const other = (await entered(gate, 'athena', 100 * KIB, order, 'athena'))!;
  await tick();
  t.same(order, ['ares 1', 'ares small', 'athena'], "ares's later large bodies (unknown lengths too) wait for its first; its small one and athena's do not");
  t.equal(gate.waiting, 2);
  t.equal(await small, null, 'a small turn has nothing to release');
  other(0);
  first(0);
  first(0); // idempotent: it does not let the third in early
  const releaseSecond = (await second)!;
  await tick();
  t.same(order, ['ares 1', 'ares small', 'athena', 'ares 2']);
  releaseSecond(0);
  (await third)!(0);
  t.same(order, ['ares 1', 'ares small', 'athena', 'ares 2', 'ares 3']);
  t.equal(gate.waiting, 0, 'nothing is left waiting');
});

t.test('a large body is charged its length when let in; a release charges only what was read beyond it', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  const release = (await gate.enter('ares', 100 * KIB))!;
  t.equal(gate.restMs('ares'), 100, 'charged on entry, before it is read');
  release(40 * KIB);
  t.equal(gate.restMs('ares'), 100, 'a body cut short gives nothing back');
  const unknown = (await gate.enter('athena', Number.NaN))!;
  t.equal(gate.restMs('athena'), 0, 'a body of unknown length is charged once read');
  unknown(30 * KIB);
  t.equal(gate.restMs('athena'), 30);
  unknown(90 * KIB);
  t.equal(gate.restMs('athena'), 30, 'a second release charges nothing');
  const nan = (await gate.enter('hermes', Number.NaN))!;
  await clock.advance(0);
  nan(5 * KIB);
  t.equal(gate.restMs('hermes'), 5);
  const longer = (await gate.enter('zeus', 70 * KIB))!;
  longer(80 * KIB);
  t.equal(gate.restMs('zeus'), 80, 'bytes read beyond the length charged are charged on release');
});

t.test('a large body waits for the rest like any other', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  gate.charge('ares', 200 * KIB);
  const order: string[] = [];
  const large = entered(gate, 'ares', 100 * KIB, order, 'large');
  await clock.advance(135);
  t.same(order, [], 'it waits while the rest runs more than 64 ms ahead');
  await clock.advance(1);
  const release = (await large)!;
  t.same(order, ['large']);
  t.equal(gate.restMs('ares'), 164, 'charged its length when let in');
  release(100 * KIB);
  t.equal(gate.restMs('ares'), 164);
});

t.test('answers are charged too: a charge made while bodies wait is slept out before they go', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  gate.charge('ares', 100 * KIB);
  gate.charge('ares', 100 * KIB);
  t.equal(gate.restMs('ares'), 200, 'two answers of 100 KiB built back to back');
  let done = false;
  const waiting = gate.enter('ares', 1)!.then(() => (done = true));
  await clock.advance(100);
  gate.charge('ares', 50 * KIB); // an answer of ares built while its next request waits
  await clock.advance(36);
  t.notOk(done, 'still waiting for the charge made meanwhile');
  t.same(clock.slept, [136, 50], 'it sleeps again for what is left');
  await clock.advance(50);
  await waiting;
  t.ok(done);
  t.equal(gate.restMs('ares'), 64 + 1 / KIB);
});

t.test('a rest is counted from now once it is over, and reads 0, not less', async (t) => {
  const clock = testClock();
  const gate = new TransferGate(PACE, clock);
  t.equal(gate.restMs('nobody'), 0, 'an agent that never sent anything');
  await clock.advance(500);
  t.equal(gate.enter('ares', 50 * KIB), null);
  t.equal(gate.restMs('ares'), 50, 'a first body counts from now');
  await clock.advance(60);
  t.equal(gate.restMs('ares'), 0, 'over for 10 ms: 0');
  t.equal(gate.enter('ares', 50 * KIB), null);
  t.equal(gate.restMs('ares'), 50, 'a body after a rest that ended counts from now, not from its end');
  gate.charge('ares', 10 * KIB);
  t.equal(gate.restMs('ares'), 60, 'untimed bytes count on top');
});

t.test('on the real clock a body over the allowance waits out the rest', async (t) => {
  const gate = new TransferGate(50); // 50 ms a MiB: the allowance is 3.125 ms
  gate.charge('ares', 8 * MIB);
  // Read before the wait so a stall between the two lines cannot shorten the wait measured.
  const t0 = performance.now();
  const rest = gate.restMs('ares');
  t.ok(rest > 300 && rest <= 400, `a rest of at most 400 ms has begun (${rest.toFixed(1)})`);
  await gate.enter('ares', 1);
  t.ok(performance.now() - t0 >= rest - 3.125, 'a small request waited for all of it but the allowance');
  t.ok(gate.restMs('ares') <= 3.125);
});
