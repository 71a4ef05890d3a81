// decisions §7: a game-thread restart is a fresh world: it emits world_generated (cause
// "restart"), and the seq counter, owned by the main loop, goes on from where it was.
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { openSse, startEventBridge } from './helpers.ts';

t.test('a dead game thread is replaced: world_generated with cause restart, seq never restarts', async (t) => {
  const b = await startEventBridge(t);
  await b.cmd('emit_events', { kind: 'ping', count: 3 });
  const before = b.bridge.stats().events.seq;
  const sse = await openSse(b.bridge.port, '/events?kinds=world_generated,ping');
  const killed = await b.cmd('kill_game_thread');
  t.equal(killed.status, 500, 'what ran when the thread died answers GAME_CRASH');
  const restarted = await sse.waitFor((f) => f.event === 'world_generated', 30_000, 'the fresh world');
  const event = JSON.parse(restarted.data!);
  t.match(event, { kind: 'world_generated', cause: 'restart', seed: Number });
  t.ok(event.seq > before, `seq ${event.seq} continues after ${before}`);
  await until(() => b.bridge.stats().gameThreadRestarts === 1);
  let emitted = await b.cmd('emit_events', { kind: 'ping', count: 1 });
  // The fresh thread may still be starting: BUSY until it is (decisions §6).
  for (let i = 0; i < 50 && emitted.status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    emitted = await b.cmd('emit_events', { kind: 'ping', count: 1 });
  }
  t.equal(emitted.status, 200);
  const ping = await sse.waitFor((f) => f.event === 'ping', 10_000, 'a ping from the fresh thread');
  t.ok(Number(ping.id) > event.seq, 'and on from there');
  sse.close();
});
