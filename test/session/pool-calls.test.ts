// The pool's table of session calls: each name reaches its own method with the worker's input
// turned into the method's arguments, a method's refusal comes back as its failure, and a name
// outside the table is refused with a failure that names the calls a pool command may make.
import t from 'tap';
import pino from 'pino';
import { parseAgents } from '../../src/config/agents.ts';
import { callSession, POOL_SESSION_CALLS } from '../../src/session/pool-calls.ts';
import { Session } from '../../src/session/session.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import type { KingdomInfo } from '../../src/shared/game-module.ts';

const log = pino({ enabled: false });
const player = (id: string) => ({ id, token: `token-for-${id}-0123456789-ABCDEFGHJK`, role: 'faction_player' });

function start() {
  const config = parseAgents('agents.json', JSON.stringify({ turn_based: true, agents: [player('a'), player('b')] }));
  const s = Session.multiAgent(config, createSharedState().control, log);
  t.teardown(() => s.stop());
  return { s, caller: (id: string) => s.callerOf(id)! };
}

t.test('the table holds exactly the calls the pool commands make', async (t) => {
  t.same([...POOL_SESSION_CALLS].sort(), ['info', 'objectives', 'recv', 'send', 'turn_advance']);
});

t.test('an unknown call is refused, names what may be called, and touches nothing', async (t) => {
  const { s, caller } = start();
  const before = s.info();
  for (const name of ['nonsense', 'reload', 'constructor', '__proto__', 'toString', '']) {
    const answer = callSession(s, name, { to: 'b', content: 'x' }, caller('a'));
    t.match(
      answer,
      { ok: false, code: 'GAME_CRASH', message: `Error: unknown session call '${name}': a pool command may call info, turn_advance, send, recv, objectives` },
      `'${name}' is refused`,
    );
  }
  t.same(s.info(), before, 'the session is as it was');
  t.same(s.receive(caller('b'), 0, 50).count, 0, 'no message went out');
});

t.test('each name reaches its method with the input turned into its arguments', async (t) => {
  const { s, caller } = start();
  t.same(callSession(s, 'info', undefined, caller('a')), { ok: true, value: s.info() }, 'info takes no input');
  const sent = callSession(s, 'send', { to: 'b', content: 'hello', kind: 'plan' }, caller('a'));
  t.same(sent, { ok: true, value: { seq: 1, recipients: ['b'], broadcast: false } });
  callSession(s, 'send', { to: 'b', content: 'again' }, caller('a'));
  const received = s.receive(caller('b'), 0, 50);
  t.match(
    received.items,
    [
      { seq: 1, from: 'a', kind: 'plan', content: 'hello' },
      { seq: 2, kind: 'text', content: 'again' },
    ],
    'kind defaults to text',
  );
  t.same(callSession(s, 'recv', { since_seq: 1, max: 5 }, caller('b')), { ok: true, value: s.receive(caller('b'), 1, 5) }, 'recv passes since_seq and max');
  t.same(callSession(s, 'recv', {}, caller('b')), { ok: true, value: received }, 'recv defaults: from the start, 50');
  t.same(callSession(s, 'turn_advance', undefined, caller('a')), { ok: true, value: { previous: 'a', next: 'b', forced_by_god: false } });
  t.equal(s.turnHolder, 'b');
  const kingdoms: KingdomInfo[] = [];
  t.same(callSession(s, 'objectives', { kingdoms }, caller('a')), { ok: true, value: s.objectives(kingdoms) });
});

t.test("a method's refusal is its failure, with its own code", async (t) => {
  const { s, caller } = start();
  t.match(callSession(s, 'send', { to: 'nobody', content: 'x' }, caller('a')), { ok: false, code: 'BAD_ARGS', message: /unknown recipient 'nobody'/ });
  t.match(callSession(s, 'turn_advance', undefined, caller('b')), { ok: false, code: 'TURN_NOT_YOURS' });
  t.throws(() => s.advanceTurn(caller('b')), { code: 'TURN_NOT_YOURS' }, 'the method itself throws: the main loop sees the error');
});
