// decisions §13 cursors in the hub: the last seq an agent without read_all may see, worked out
// from the events since its last look, newest first; recv_events' next_cursor stands on it.
import pino from 'pino';
import t from 'tap';
import { ROLE_MASKS } from '../../src/auth/permissions.ts';
import { EventHub } from '../../src/events/hub.ts';
import { allKinds } from '../../src/events/kinds.ts';
import type { CallerContext } from '../../src/shared/caller.ts';

const silent = pino({ level: 'silent' });

function caller(agentId: string, role: keyof typeof ROLE_MASKS, claim: number | null): CallerContext {
  return {
    agentId,
    agentIndex: 0,
    role,
    permissions: ROLE_MASKS[role],
    claimedKingdomId: claim,
    scenario: 'pvp',
    partialIntel: true,
    turnBased: false,
    legacyMode: false,
  };
}

function hub(history = 10_000): EventHub {
  return new EventHub({ history, maxStreams: 4, multiAgent: true, tick: () => 7, keepAliveMs: 60_000, log: silent, kinds: allKinds(['ping']) });
}

function recv(h: EventHub, c: CallerContext, since: number) {
  const out = h.recv({ since_seq: since, max: 1000 }, c, undefined);
  if (out instanceof Promise || !out.ok) throw new Error('recv did not answer at once');
  return out.value;
}

const athena = caller('athena', 'faction_player', 1);
const zeus = caller('zeus', 'god', null);

t.test('the last visible seq, however far back; then only new events are looked at', async (t) => {
  const h = hub();
  t.equal(h.visibleSeq(athena), 0, 'nothing yet');
  h.emit('ping', {}, [1]);
  // Far more hidden events than the first windows of the backward look (64, 256, 1024).
  for (let i = 0; i < 2000; i++) h.emit('ping', { i }, [2]);
  t.equal(h.visibleSeq(athena), 1, 'the one event of kingdom 1');
  t.equal(h.visibleSeq(zeus), 2001, 'read_all: the global counter');
  for (let i = 0; i < 10; i++) h.emit('ping', { i }, [2]);
  t.equal(h.visibleSeq(athena), 1, 'still, after more hidden events');
  h.emit('ping', {}, []);
  h.emit('command', { agent: 'ares' }, [], { agents: ['ares'], readAll: true });
  t.equal(h.visibleSeq(athena), 2012, 'a global event');
  h.emit('command', { agent: 'athena' }, [], { agents: ['athena'], readAll: true });
  h.emit('message', { from: 'zeus', to: 'ares' }, [], { agents: ['zeus', 'ares'], readAll: false });
  t.equal(h.visibleSeq(athena), 2014, 'its own command record, not a message between others');

  const answer = recv(h, athena, 1);
  t.same(
    answer.items.map((json) => JSON.parse(json).seq),
    [2012, 2014],
  );
  t.equal(answer.next_cursor, 2014);
  t.equal(recv(h, athena, 2014).next_cursor, 2014, 'from the cursor: it stands');
  const beyond = recv(h, athena, 2015);
  t.same([beyond.count, beyond.next_cursor], [0, 2014], 'a since_seq beyond it: nothing, the same cursor');
  t.equal(recv(h, zeus, 2015).next_cursor, 2015, 'read_all: the global counter');
  await h.stop();
});

t.test('a new claim is another view: worked out again from what is kept', async (t) => {
  const h = hub();
  h.emit('ping', {}, [1]);
  h.emit('ping', {}, [2]);
  h.emit('ping', {}, [3]);
  t.equal(h.visibleSeq(athena), 1);
  const moved = { ...athena, claimedKingdomId: 2 };
  t.equal(h.visibleSeq(moved), 2, 'claim 2: its event');
  t.equal(h.visibleSeq({ ...athena, partialIntel: false }), 3, 'without partial_intel: every event but others’ records');
  t.equal(h.visibleSeq(athena), 1, 'back to claim 1');
  await h.stop();
});

t.test('evicted events are not counted: the cursor stays at the last one it was known to see', async (t) => {
  const h = hub(8);
  h.emit('ping', {}, [1]);
  t.equal(h.visibleSeq(athena), 1);
  for (let i = 0; i < 20; i++) h.emit('ping', { i }, [2]);
  t.equal(h.visibleSeq(athena), 1, 'only hidden events kept: still 1');
  t.equal(h.visibleSeq(caller('eris', 'faction_player', 1)), 0, 'an agent with no look before: nothing it may see is kept');
  await h.stop();
});
