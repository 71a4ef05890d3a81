// client.events() against a real bridge when things go wrong (decisions §7): gaps (history or
// restart), 503 BUSY retried until a place frees (or maxRetries), and the errors that end it.
import t from 'tap';
import { BridgeClient } from '../../src/client/client.ts';
import { BridgeCallError } from '../../src/client/errors.ts';
import type { BridgeEvent, StreamNotice } from '../../src/client/events.ts';
import { openSse, startEventBridge, TOKEN } from '../events/helpers.ts';
import { take, waitFor } from './helpers.ts';

t.setTimeout(120_000);

t.test('gaps: history goes on with the kept events, restart skips them', async (t) => {
  const b = await startEventBridge(t, { eventHistory: 5 });
  await b.cmd('emit_events', { kind: 'ping', count: 20 });
  const client = new BridgeClient({ url: b.bridge.url, token: TOKEN });

  const notices: StreamNotice[] = [];
  const history = client.events({ kinds: ['ping'], since: 0, onNotice: (n) => notices.push(n) });
  // History 5: the last 4 pings and the audit record of emit_events, which comes after the events
  // its command emitted (they reach the main loop with its answer).
  const kept = await take(history, 4);
  const gap = notices.find((n) => n.type === 'gap');
  t.match(gap, { type: 'gap', from: 1, action: 'history' });
  t.equal(kept[0]!.seq, (gap as { to: number }).to + 1, 'the kept events follow the gap');
  await history.return();

  const restartNotices: StreamNotice[] = [];
  const restart = client.events({ kinds: ['ping'], since: 0, onGap: 'restart', onNotice: (n) => restartNotices.push(n) });
  const pending = restart.next();
  await waitFor(() => restartNotices.some((n) => n.type === 'gap'));
  t.match(
    restartNotices.find((n) => n.type === 'gap'),
    { action: 'restart' },
  );
  const before = b.bridge.stats().events.seq;
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  const live = (await pending).value as BridgeEvent;
  t.ok(live.seq > before, `the first event is live (${live.seq} > ${before}), the kept ones were skipped`);
  await restart.return();

  const noGap = client.events({ kinds: ['ping'], since: b.bridge.stats().events.seq - 2, onGap: 'restart' });
  t.equal((await take(noGap, 1)).length, 1, 'restart skips nothing when there is no gap');
  await noGap.return();
});

t.test('503 BUSY is retried until a stream place frees', async (t) => {
  const b = await startEventBridge(t, { maxEventStreams: 1 });
  const holder = await openSse(b.bridge.port, '/events');
  t.equal(holder.status, 200);
  const notices: StreamNotice[] = [];
  const stream = new BridgeClient({ url: b.bridge.url, token: TOKEN }).events({
    kinds: ['ping'],
    baseDelayMs: 50,
    maxDelayMs: 200,
    onNotice: (n) => notices.push(n),
  });
  const pending = stream.next();
  await waitFor(() => notices.some((n) => n.type === 'reconnect' && n.reason === 'busy'));
  const busy = notices.find((n) => n.type === 'reconnect');
  t.match(busy, { reason: 'busy', error: { code: 'BUSY' } });
  // Retry-After: 1 is a floor, but never past maxDelayMs.
  t.ok((busy as { delayMs: number }).delayMs <= 200);
  holder.close();
  await waitFor(() => notices.some((n) => n.type === 'connected'), 10_000);
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  t.match((await pending).value, { kind: 'ping' });
  await stream.return();

  const bounded = new BridgeClient({ url: b.bridge.url, token: TOKEN }).events({ baseDelayMs: 10, maxDelayMs: 10, maxRetries: 2 });
  const second = await openSse(b.bridge.port, '/events');
  await t.rejects(bounded.next(), { name: 'BridgeCallError', code: 'BUSY' }, 'maxRetries bounds the retries');
  second.close();
});

t.test('401 and 400 end the iterator with the typed error (anything but BUSY does)', async (t) => {
  const b = await startEventBridge(t);
  const wrong = new BridgeClient({ url: b.bridge.url, token: 'W'.repeat(48) }).events();
  const error = await wrong.next().catch((err: unknown) => err);
  t.type(error, BridgeCallError);
  t.match(error, { code: 'UNAUTHORIZED', status: 401 });
  t.same(await wrong.next(), { value: undefined, done: true }, 'and the stream is over');

  const unknown = new BridgeClient({ url: b.bridge.url, token: TOKEN }).events({ kinds: ['pnig'] });
  const bad = (await unknown.next().catch((err: unknown) => err)) as BridgeCallError;
  t.match(bad, { code: 'BAD_ARGS', status: 400 });
  t.ok(bad.didYouMean?.includes('ping'), 'did_you_mean kept');
});
