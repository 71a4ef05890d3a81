// Direct unit cases for the turn timer and the turn gate (decisions §4, §11). The timer's arming is
// watched through a spy on setTimeout/clearTimeout, and its expiry fired by hand: the rules are
// about which events arm, keep or stop the timer, and a real clock would make them flaky on a loaded
// machine. The timeouts themselves are proven over HTTP by test/multi-agent/turn-timeout.test.ts.
// (`npm run mutate -- session` runs this file for every mutant, so it stays fast.)
import t from 'tap';
import { parseAgents } from '../../src/config/agents.ts';
import type { CommandDef } from '../../src/commands/define.ts';
import { callSession } from '../../src/session/pool-calls.ts';
import { Session } from '../../src/session/session.ts';
import { createSharedState } from '../../src/shared/layout.ts';
import { captureLog } from '../helpers/log.ts';

const HOUR_MS = 3_600_000;
const TOK = (id: string) => `token-for-${id}-0123456789-ABCDEFGHJK`;
const player = (id: string) => ({ id, token: TOK(id), role: 'faction_player' });
const god = (id: string) => ({ id, token: TOK(id), role: 'god' });
const config = (spec: Record<string, unknown>) => parseAgents('agents.json', JSON.stringify(spec));
const gated = { name: 'spawn', turnGated: true } as CommandDef;
const read = { name: 'get_tile', turnGated: false } as CommandDef;

function start(spec: Record<string, unknown>) {
  const { log, lines } = captureLog<{ level: number; msg: string; [key: string]: unknown }>();
  const s = Session.multiAgent(config(spec), createSharedState().control, log);
  const events: Array<{ kind: string; fields: Record<string, unknown> }> = [];
  s.setEventSink((kind, fields) => void events.push({ kind, fields }));
  t.teardown(() => s.stop());
  const caller = (id: string) => s.callerOf(id)!;
  return { s, events, lines, caller };
}

interface Timers {
  /** Delays of the timers armed during the call. */
  armed: Array<number | undefined>;
  /** Their callbacks, to fire an expiry by hand. */
  fire: Array<() => void>;
  /** How many timers were cleared during the call (a cleared null is no timer). */
  cleared: number;
}

/** Runs `fn` with setTimeout and clearTimeout watched (the session's turn timer is its only timer). */
function timersOf(fn: () => unknown): Timers {
  const seen: Timers = { armed: [], fire: [], cleared: 0 };
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  globalThis.setTimeout = ((callback: () => void, ms?: number) => {
    seen.armed.push(ms);
    seen.fire.push(callback);
    return realSet(() => {}, HOUR_MS).unref(); // never fires: expiries are fired by hand
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle?: NodeJS.Timeout) => {
    if (handle) seen.cleared++;
    realClear(handle);
  }) as typeof clearTimeout;
  try {
    fn();
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
  return seen;
}

t.test('start() arms the turn timer only in a turn-based session with a turn_timeout_s', async (t) => {
  t.same(timersOf(() => start({ turn_based: true, turn_timeout_s: 3600, agents: [player('a'), player('b')] }).s.start()).armed, [HOUR_MS]);
  t.same(timersOf(() => start({ turn_based: true, agents: [player('a'), player('b')] }).s.start()).armed, [], 'no timeout: no timer');
  t.same(
    timersOf(() => start({ turn_based: false, turn_timeout_s: 3600, agents: [player('a'), player('b')] }).s.start()).armed,
    [],
    'not turn-based: no timer',
  );
});

t.test('an expired turn passes like turn_advance: the turn_changed event, the log lines, a new whole timeout', async (t) => {
  const { s, events, lines } = start({ turn_based: true, turn_timeout_s: 3600, agents: [player('a'), player('b')] });
  const first = timersOf(() => s.start());
  const next = timersOf(() => first.fire[0]!());
  t.equal(s.turnHolder, 'b');
  t.same(events, [{ kind: 'turn_changed', fields: { previous: 'a', next: 'b', forced_by_god: false } }]);
  t.match(lines, [
    { level: 40, holder: 'a', msg: 'turn timeout: the holder ran no action or control command in time and loses the turn' },
    { level: 30, previous: 'a', next: 'b', forced_by_god: false, msg: 'turn passed' },
  ]);
  t.same(next.armed, [HOUR_MS], "b's timer starts with the turn");
});

t.test('turn_advance re-arms the timer only when there is a timeout; a god forcing it is logged as forced', async (t) => {
  const timed = start({ turn_based: true, turn_timeout_s: 3600, agents: [player('a'), player('b'), god('g')] });
  t.same(timersOf(() => void callSession(timed.s, 'turn_advance', {}, timed.caller('a'))).armed, [HOUR_MS]);
  const forced = timersOf(() => void callSession(timed.s, 'turn_advance', {}, timed.caller('g')));
  t.same(forced.armed, [HOUR_MS]);
  t.match(timed.lines.at(-1), { previous: 'b', next: 'a', forced_by_god: true, msg: 'turn passed' });
  t.same(timed.events.at(-1), { kind: 'turn_changed', fields: { previous: 'b', next: 'a', forced_by_god: true } });

  const untimed = start({ turn_based: true, agents: [player('a'), player('b')] });
  t.same(timersOf(() => void callSession(untimed.s, 'turn_advance', {}, untimed.caller('a'))).armed, [], 'no timeout: nothing armed');
  t.equal(untimed.s.turnHolder, 'b');
});

t.test("acted() restarts only the holder's timer, only with a timeout, only in a turn-based session", async (t) => {
  const timed = start({ turn_based: true, turn_timeout_s: 3600, agents: [player('a'), player('b')] });
  timed.s.start();
  t.same(timersOf(() => timed.s.acted(timed.caller('a'))).armed, [HOUR_MS], 'the holder acted: a whole timeout again');
  t.same(timersOf(() => timed.s.acted(timed.caller('b'))).armed, [], 'another agent acting keeps nothing');
  const untimed = start({ turn_based: true, agents: [player('a'), player('b')] });
  t.same(timersOf(() => untimed.s.acted(untimed.caller('a'))).armed, [], 'no timeout');
  const free = start({ turn_based: false, turn_timeout_s: 3600, agents: [player('a'), player('b')] });
  t.same(timersOf(() => free.s.acted(free.caller('a'))).armed, [], 'not turn-based');
  t.same(free.events, []);
});

t.test('a reload keeps a running timer for a holder who keeps the turn, and stops it when the turn ends', async (t) => {
  const spec = (extra: Record<string, unknown>) => ({ turn_based: true, turn_timeout_s: 3600, agents: [player('a'), player('b')], ...extra });
  const running = start(spec({}));
  running.s.start();
  t.same(timersOf(() => running.s.reload(config(spec({ partial_intel: true })))).armed, [], 'same holder, same timeout: the old deadline stands');

  const idle = start(spec({}));
  t.same(timersOf(() => idle.s.reload(config(spec({})))).armed, [HOUR_MS], 'no timer was running: the reload starts one');

  const ending = start(spec({}));
  ending.s.start();
  const off = timersOf(() => ending.s.reload(config(spec({ turn_based: false }))));
  t.same(off.armed, [], 'no longer turn-based: nothing armed');
  t.equal(off.cleared, 1, 'and the running timer stopped');
  t.match(ending.lines.at(-1), { previous: 'a', next: null, msg: 'turn passed: agents.json changed the rotation' });
});

t.test('a session turning turn-based starts with the first of the new rotation, not the old default order', async (t) => {
  const { s } = start({ agents: [player('a'), player('b'), player('c')] }); // default order a, b, c; not turn-based
  s.reload(config({ turn_based: true, turn_order: ['c', 'a'], agents: [player('a'), player('b'), player('c')] }));
  t.equal(s.turnHolder, 'c');
});

t.test('an empty turn_order: no one holds the turn, no one waits', async (t) => {
  const { s, caller } = start({ turn_based: true, turn_order: [], agents: [player('a'), player('b')] });
  t.equal(s.turnHolder, null);
  t.equal(s.checkTurn(gated, caller('a')), null);
});

t.test('the turn gate: the holder, gods and ungated commands pass; others get TURN_NOT_YOURS naming the holder', async (t) => {
  const { s, caller } = start({ turn_based: true, agents: [player('a'), player('b'), god('g')] });
  t.equal(s.checkTurn(gated, caller('a')), null, 'the holder');
  t.equal(s.checkTurn(gated, caller('g')), null, 'a god');
  t.equal(s.checkTurn(read, caller('b')), null, 'an ungated command');
  t.same(
    s.checkTurn(gated, caller('b')),
    { ok: false, code: 'TURN_NOT_YOURS', message: "it is a's turn; 'spawn' waits for your turn (turn_order: a → b)" },
    'a Failure, as the hooks beside it give',
  );
  const advance = callSession(s, 'turn_advance', {}, caller('b'));
  t.match(advance, { ok: false, code: 'TURN_NOT_YOURS', message: "it is a's turn; only the holder or a god can pass it" });
  const free = start({ agents: [player('a'), player('b')] });
  t.equal(free.s.checkTurn(gated, free.caller('b')), null, 'not turn-based: no gate');
  t.equal(free.s.turnHolder, null);
});

t.test('a reload that puts the holder at the head of the rotation leaves the turn with it', async (t) => {
  const { s, events, caller } = start({ turn_based: true, agents: [player('a'), player('b'), player('c')] });
  callSession(s, 'turn_advance', {}, caller('a')); // b holds
  s.reload(config({ turn_based: true, turn_order: ['b', 'c', 'a'], agents: [player('a'), player('b'), player('c')] }));
  t.equal(s.turnHolder, 'b');
  t.equal(events.length, 1, 'no turn_changed but the advance');
});
