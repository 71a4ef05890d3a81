// client.events() against a real bridge (decisions §7): resuming after the connection drops (no
// event twice, none lost), gaps, BUSY retried, typed errors, aborting; and against a fake server
// for what a bridge does not do on demand (a silent connection).
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { BridgeClient } from '../../src/client/client.ts';
import type { BridgeEvent, StreamNotice } from '../../src/client/events.ts';
import { startEventBridge, TOKEN } from '../events/helpers.ts';
import type { TestBridge } from '../helpers/bridge.ts';
import { take, waitFor } from './helpers.ts';

// Real bridges on a loaded machine; gaps, BUSY and errors are in events-faults.test.ts, a bridge
// restart in events-restart.test.ts.
t.setTimeout(120_000);

/**
 * A TCP proxy in front of the bridge whose connections a test can cut, as a network would. It
 * rewrites the Host header (the bridge accepts only its own host and port).
 */
async function cuttableProxy(t: Test, bridgePort: number) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(bridgePort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => upstream.write(chunk.toString('latin1').replace(/^host: .*$/im, `host: 127.0.0.1:${bridgePort}`), 'latin1'));
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** Drops every connection through the proxy at once. */
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** The seqs of the ping events the bridge kept: the truth a stream is checked against. */
async function pingSeqs(b: TestBridge): Promise<number[]> {
  const result = (await b.cmd('recv_events', { since_seq: 0, kinds: ['ping'], max: 1000 })).body.result;
  return result.items.map((e: { seq: number }) => e.seq);
}

t.test('resumes after the connection drops: every event once, in order', async (t) => {
  const b = await startEventBridge(t);
  const proxy = await cuttableProxy(t, b.bridge.port);
  const notices: StreamNotice[] = [];
  const client = new BridgeClient({ url: proxy.url, token: TOKEN });
  const stream = client.events({ kinds: ['ping'], since: 0, baseDelayMs: 50, onNotice: (n) => notices.push(n) });
  await b.cmd('emit_events', { kind: 'ping', count: 5 });
  const first = await take(stream, 5);
  t.equal(first.length, 5);
  proxy.cut();
  // Emitted while the client is away: the resumed stream must bring them, and nothing twice.
  await b.cmd('emit_events', { kind: 'ping', count: 5 });
  const second = await take(stream, 5);
  await b.cmd('emit_events', { kind: 'ping', count: 3 });
  const third = await take(stream, 3);
  const seqs = [...first, ...second, ...third].map((e) => e.seq);
  t.same(seqs, await pingSeqs(b), 'exactly the kept pings, in order');
  t.ok(
    notices.some((n) => n.type === 'reconnect' && (n.reason === 'dropped' || n.reason === 'ended')),
    'a reconnect notice',
  );
  const reconnect = notices.find((n) => n.type === 'reconnect');
  t.match(reconnect, { type: 'reconnect', attempt: 1, lastSeq: first[4]!.seq }, 'resuming after the last event received');
  t.ok(stream.reconnects >= 1);
  await stream.return();
});

t.test('X-Event-Run and X-Event-Seq; a stream without since resumes from the newest seq at opening', async (t) => {
  const b = await startEventBridge(t);
  await b.cmd('emit_events', { kind: 'ping', count: 2 });
  // The events a command emitted reach the main loop with its answer, and its audit record comes
  // before the answer leaves: nothing is numbered after this.
  const newest = b.bridge.stats().events.seq;
  t.equal(newest, 4, 'world_generated, two pings, the audit record');
  const raw = await b.fetch('/events');
  t.match(raw.headers.get('x-event-run'), /^[0-9a-f]{16}$/);
  t.equal(Number(raw.headers.get('x-event-seq')), newest);
  await raw.body?.cancel();

  const proxy = await cuttableProxy(t, b.bridge.port);
  const notices: StreamNotice[] = [];
  const stream = new BridgeClient({ url: proxy.url, token: TOKEN }).events({ kinds: ['ping'], baseDelayMs: 50, onNotice: (n) => notices.push(n) });
  const pending = stream.next();
  // The stream opens inside next(): wait for it before cutting.
  await t.resolves(waitFor(() => notices.some((n) => n.type === 'connected')));
  const connected = notices.find((n) => n.type === 'connected');
  t.match(connected, { run: raw.headers.get('x-event-run'), seq: Number });
  proxy.cut();
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  const event = (await pending).value as BridgeEvent;
  t.ok(event.seq > newest, 'the ping emitted while the stream was down, not an older one');
  await stream.return();
});

t.test('abort: a signal, return() and break end the stream, a pending next() resolves done', async (t) => {
  const b = await startEventBridge(t);
  const client = new BridgeClient({ url: b.bridge.url, token: TOKEN });
  const controller = new AbortController();
  const stream = client.events({ signal: controller.signal });
  const pending = stream.next();
  await waitFor(() => b.bridge.stats().events.streams === 1);
  controller.abort();
  t.same(await pending, { value: undefined, done: true });
  await waitFor(() => b.bridge.stats().events.streams === 0, 10_000);
  t.pass('the bridge saw the stream end');

  const other = client.events({ kinds: ['ping'] });
  const waiting = other.next();
  await waitFor(() => b.bridge.stats().events.streams === 1);
  await other.return();
  t.same(await waiting, { value: undefined, done: true }, 'return() ends a waiting next()');

  await b.cmd('emit_events', { kind: 'ping', count: 3 });
  let seen = 0;
  for await (const event of client.events({ kinds: ['ping'], since: 0 })) {
    t.equal(event.kind, 'ping');
    if (++seen === 2) break;
  }
  t.equal(seen, 2);
  await waitFor(() => b.bridge.stats().events.streams === 0, 10_000);
  t.pass('break closed the stream');

  const aborted = new AbortController();
  aborted.abort();
  t.same(await client.events({ signal: aborted.signal }).next(), { value: undefined, done: true }, 'an aborted signal: done at once');
});

t.test('a silent connection (no event, no keep-alive) is dropped after idleTimeoutMs', async (t) => {
  const requests: Array<{ lastEventId: string | undefined }> = [];
  const server = createHttpServer((req, res) => {
    requests.push({ lastEventId: req.headers['last-event-id'] as string | undefined });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-event-run': 'r1', 'x-event-seq': '41' });
    res.flushHeaders();
    // The first connection says nothing at all; the second sends an event.
    if (requests.length > 1) res.write('id: 42\nevent: ping\ndata: {"seq":42,"kind":"ping"}\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const notices: StreamNotice[] = [];
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const stream = new BridgeClient({ url, token: TOKEN }).events({ idleTimeoutMs: 300, baseDelayMs: 20, onNotice: (n) => notices.push(n) });
  const event = (await stream.next()).value as BridgeEvent;
  t.equal(event.seq, 42);
  t.match(
    notices.find((n) => n.type === 'reconnect'),
    { reason: 'idle', lastSeq: 41 },
  );
  t.same(
    requests.map((r) => r.lastEventId),
    [undefined, '41'],
    'the reconnection resumes from X-Event-Seq of the first',
  );
  await stream.return();
});
