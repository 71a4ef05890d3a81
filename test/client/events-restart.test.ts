// client.events() across a bridge restart on the same port (decisions §7): a new run (X-Event-Run),
// whose seqs start again at 1, so the stream starts again from that run's history.
import t from 'tap';
import { BridgeClient } from '../../src/client/client.ts';
import type { StreamNotice } from '../../src/client/events.ts';
import { startEventBridge, TOKEN } from '../events/helpers.ts';
import { take } from './helpers.ts';

t.setTimeout(120_000);

t.test('a bridge restarted on the same port is a new run: the stream starts again from its history', async (t) => {
  const first = await startEventBridge(t);
  const port = first.bridge.port;
  const notices: StreamNotice[] = [];
  const stream = new BridgeClient({ url: first.bridge.url, token: TOKEN }).events({
    kinds: ['ping'],
    since: 0,
    baseDelayMs: 50,
    onNotice: (n) => notices.push(n),
  });
  await first.cmd('emit_events', { kind: 'ping', count: 30 });
  const before = await take(stream, 30);
  t.equal(before.at(-1)!.seq > 30, true);
  await first.bridge.close();
  const second = await startEventBridge(t, {}, { port });
  await second.cmd('emit_events', { kind: 'ping', count: 2 });
  const after = await take(stream, 2);
  t.same(
    after.map((e) => e.seq),
    (await second.cmd('recv_events', { kinds: ['ping'], max: 1000 })).body.result.items.map((e: { seq: number }) => e.seq),
    'the new run from its first ping, though its seqs are below the old resume point',
  );
  t.ok(notices.some((n) => n.type === 'reconnect' && n.reason === 'run_changed'));
  await stream.return();
});
