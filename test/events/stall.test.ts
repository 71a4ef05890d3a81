// decisions §7: no subscriber can slow the game thread, the main loop or another client. A client
// that never reads is closed once a whole buffer (1 MiB) waits for it; the others get everything.
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { openSse, startEventBridge } from './helpers.ts';

t.test('a client that never reads is closed when its buffer is full; frames and other clients go on', async (t) => {
  const b = await startEventBridge(t);
  const stalled = await openSse(b.bridge.port, '/events', { read: false });
  const reader = await openSse(b.bridge.port, '/events?kinds=big');
  t.equal(stalled.status, 200);
  const framesBefore = b.bridge.stats().frames.frames;
  // 900 KB a frame in 60 KB events: the kernel's socket buffers take a few MB before the bridge's
  // own buffer fills; a reading client drains each frame's share long before the next.
  let sent = 0;
  let answered = 0;
  for (let round = 0; round < 100 && b.bridge.stats().events.overflowed === 0; round++) {
    if ((await b.cmd('emit_events', { kind: 'big', count: 15, pad_bytes: 60_000 })).status === 200) answered++;
    sent += 15;
  }
  t.equal(answered, sent / 15, 'every command answered while a client stalled');
  await until(() => b.bridge.stats().events.overflowed === 1, 10_000, 'the stalled stream to be closed');
  // A client that reads again finds its connection dropped (not a clean end of the stream).
  stalled.response!.resume();
  t.same(await stalled.ended, { clean: false }, 'the stalled connection was dropped');
  t.equal(b.bridge.stats().events.streams, 1, 'the reading stream stays');
  await until(() => reader.events().length === sent, 20_000, `all ${sent} events at the reading client`);
  t.same(
    reader.events().map((e) => e.i),
    Array.from({ length: sent }, (_, i) => i % 15),
    'every event, in order',
  );
  t.ok(b.bridge.stats().frames.frames > framesBefore, 'frames went on');
  t.ok(
    b.logs.some((line) => /fell a whole buffer behind/.test(String(line.msg))),
    'one warning says why the stream closed',
  );
  // The stalled client's place is free again.
  t.equal(b.bridge.stats().slotsInUse, 0);
  reader.close();
});
