// decisions §13, the body gate on its own: one large body at a time per agent, in arrival order,
// other agents never wait for it, a release is idempotent, and nothing is left behind once done.
import t from 'tap';
import { BodyGate } from '../../src/admission/body-gate.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('one at a time per agent, in order; another agent passes at once', async (t) => {
  const gate = new BodyGate();
  const order: string[] = [];
  const first = await gate.enter('ares');
  const second = gate.enter('ares').then((release) => {
    order.push('ares 2');
    return release;
  });
  const third = gate.enter('ares').then((release) => {
    order.push('ares 3');
    return release;
  });
  const other = await gate.enter('athena');
  order.push('athena');
  await tick();
  t.same(order, ['athena'], "ares's later bodies wait for its first; athena's does not");
  t.equal(gate.busyAgents, 2);
  other();
  first();
  first(); // idempotent: it does not let the third in early
  const releaseSecond = await second;
  await tick();
  t.same(order, ['athena', 'ares 2']);
  releaseSecond();
  (await third)();
  t.same(order, ['athena', 'ares 2', 'ares 3']);
  t.equal(gate.busyAgents, 0, 'nothing is left behind');
});

t.test('a release out of order does not free the agent early', async (t) => {
  const gate = new BodyGate();
  const first = await gate.enter('ares');
  let secondIn = false;
  const second = gate.enter('ares').then((release) => {
    secondIn = true;
    return release;
  });
  await tick();
  t.notOk(secondIn);
  first();
  (await second)();
  t.ok(secondIn);
  t.equal(gate.busyAgents, 0);
});
