// recv_events with wait_ms and the admission slots (decisions §7): while it waits it holds no
// slot, so it answers even when every slot is taken by others; it counts toward max_event_streams.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { EVENT_COMMANDS, EVENT_GAME, TOKEN, writeEventConfig } from './helpers.ts';

t.test('while every admission slot is taken, a waiting recv_events still answers; it holds no slot', async (t) => {
  const dir = tempDir('gcb-events-');
  writeEventConfig(dir, { maxConcurrent: 2, maxEventStreams: 2 });
  const counters = new SharedArrayBuffer(32);
  const b = await startTestBridge(t, {
    configDir: dir,
    game: EVENT_GAME,
    commandModules: [EVENT_COMMANDS],
    gameOptions: { counters, stallOnPauseMs: 4000 },
    timings: { killSwitchReloadMs: 50 },
  });
  const since = b.bridge.stats().events.seq;
  const waiters = [
    b.cmd('recv_events', { since_seq: since, kinds: ['enabled_changed'], wait_ms: 20_000 }),
    b.cmd('recv_events', { since_seq: since, kinds: ['enabled_changed'], wait_ms: 20_000 }),
  ];
  // Generous: a pool thread's first task waits for its command catalogue to load (seconds under tsx).
  await until(() => b.bridge.stats().events.waiting === 2, 30_000, 'both to wait');
  t.equal(b.bridge.stats().slotsInUse, 0, 'two waiting recv_events hold none of the 2 admission slots');
  const third = await b.cmd('recv_events', { since_seq: since, kinds: ['enabled_changed'], wait_ms: 1000 });
  t.equal(third.status, 503, 'a third waiter is over max_event_streams');
  t.match(third.body.error, { code: 'BUSY', message: /max_event_streams/ });
  t.equal(third.headers.get('retry-after'), '1');
  t.equal(b.bridge.stats().slotsInUse, 0, 'the refused one gave its slot back');

  // Every slot taken by others: a 4 s frame holds one, a command queued behind it the other.
  const stall = b.cmd('pause');
  await until(() => b.bridge.stats().slotsInUse === 1, 10_000, 'the stall to hold a slot');
  const queued = b.cmd('get_world_state');
  await until(() => b.bridge.stats().slotsInUse === 2, 10_000, 'every slot to be taken');
  // A main-loop event while both slots are held: the kill switch (renamed in whole, as editors do).
  const path = join(dir, 'bridge.toml');
  writeFileSync(`${path}.tmp`, `enabled = false\n[Bridge]\ntoken = "${TOKEN}"\nmax_concurrent_requests = 2\nmax_event_streams = 2\n`);
  renameSync(`${path}.tmp`, path);
  const answers = await Promise.all(waiters);
  t.equal(b.bridge.stats().slotsInUse, 2, 'both answered while every slot was still held by others');
  for (const answer of answers) {
    t.equal(answer.status, 200);
    t.same(
      answer.body.result.items.map((e: any) => [e.kind, e.enabled]),
      [['enabled_changed', false]],
    );
  }
  await Promise.all([stall, queued]);
  await until(() => b.bridge.stats().slotsInUse === 0, 10_000, 'every slot back');
  t.equal(b.bridge.stats().events.waiting, 0);
});
