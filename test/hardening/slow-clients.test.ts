// Faults: slow clients. 200 sockets sending their headers a byte at a time and 200 idle sockets do
// not stop a normal request from being answered (well before any of them is closed), and Node's
// header timeout (10 s) closes them all; 20 sockets that finish their headers and then send the
// body a byte at a time are closed by the whole-request timeout (30 s). None of them takes a slot.
// The timeouts are the real ones (LIMITS), so this file takes about 35 s.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { LIMITS } from '../../src/limits.ts';
import { startTestBridge, until } from '../helpers/bridge.ts';
import { sleep } from './helpers.ts';

t.setTimeout(120_000);

const SLOWLORIS = 200;
const IDLE = 200;
const SLOW_BODY = 20;

interface Slow {
  socket: Socket;
  closedAt: number | null;
  answer: string;
}

t.test('slow clients', async (t) => {
  const b = await startTestBridge(t);
  const port = b.bridge.port;
  const sockets: Slow[] = [];
  const openedAt = Date.now();
  const open = (): Promise<Slow> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const slow: Slow = { socket, closedAt: null, answer: '' };
      socket.on('data', (chunk: Buffer) => (slow.answer += chunk.toString()));
      socket.on('close', () => (slow.closedAt = Date.now()));
      socket.on('error', () => {});
      socket.once('connect', () => resolve(slow));
      socket.once('error', reject);
      sockets.push(slow);
    });
  t.teardown(() => {
    for (const s of sockets) s.socket.destroy();
  });

  const header = `POST /cmd HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${b.token}\r\nContent-Type: application/json\r\nX-Padding: ${'p'.repeat(4000)}\r\n\r\n`;
  const slowloris = await Promise.all(Array.from({ length: SLOWLORIS }, open));
  const idle = await Promise.all(Array.from({ length: IDLE }, open));
  const body = '{"name":"get_ui_state"}';
  const slowBody = await Promise.all(Array.from({ length: SLOW_BODY }, open));
  for (const s of slowBody)
    s.socket.write(
      `POST /cmd HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${b.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 10_000}\r\n\r\n`,
    );

  // One byte at a time: every slowloris socket gets its next byte every 250 ms, for at most 45 s.
  let position = 0;
  const drip = setInterval(() => {
    for (const s of slowloris) if (!s.socket.destroyed && position < header.length) s.socket.write(header[position]!);
    for (const s of slowBody) if (!s.socket.destroyed) s.socket.write(' ');
    position++;
  }, 250);
  t.teardown(() => clearInterval(drip));
  const stopDrip = setTimeout(() => clearInterval(drip), 45_000);
  t.teardown(() => clearTimeout(stopDrip));

  await t.test('a normal request is answered while they hang on', async (t) => {
    await sleep(1000); // every slow socket has started dripping
    for (let i = 0; i < 5; i++) {
      const before = sockets.filter((s) => s.closedAt !== null).length;
      const reply = await b.cmd('get_ui_state');
      t.equal(reply.status, 200, `request ${i + 1} answered`);
      t.equal(before, 0, 'while all 420 slow sockets were still open (no timeout had freed anything yet)');
      await sleep(200);
    }
    t.equal((await b.fetch('/health')).status, 200);
    t.equal(b.bridge.stats().slotsInUse, 0, 'no slow client holds a slot');
    t.equal(b.bridge.stats().waiting, 0);
  });

  await t.test('the header timeout closes the slowloris and idle sockets', async (t) => {
    await until(() => [...slowloris, ...idle].every((s) => s.closedAt !== null), LIMITS.headersTimeoutMs + 15_000, 'the header timeout');
    const latest = Math.max(...[...slowloris, ...idle].map((s) => s.closedAt! - openedAt));
    t.comment(
      `all ${SLOWLORIS + IDLE} closed by ${(latest / 1000).toFixed(1)} s (header timeout ${LIMITS.headersTimeoutMs / 1000} s, checked every ${LIMITS.connectionsCheckingIntervalMs / 1000} s)`,
    );
    t.ok(position < header.length, 'none of them ever finished its headers');
    t.ok(
      slowloris.every((s) => !/"ok":true/.test(s.answer)),
      'none of them was served',
    );
    t.equal((await b.cmd('get_ui_state')).status, 200, 'and the bridge serves');
  });

  await t.test('the request timeout closes the sockets whose body never ends', async (t) => {
    t.ok(
      slowBody.every((s) => s.closedAt === null),
      'headers complete, so the header timeout spared them',
    );
    await until(() => slowBody.every((s) => s.closedAt !== null), LIMITS.requestTimeoutMs + 15_000, 'the request timeout');
    const latest = Math.max(...slowBody.map((s) => s.closedAt! - openedAt));
    t.comment(`all ${SLOW_BODY} closed by ${(latest / 1000).toFixed(1)} s (request timeout ${LIMITS.requestTimeoutMs / 1000} s)`);
    t.ok(
      slowBody.every((s) => !/"ok":true/.test(s.answer)),
      'none of them was served',
    );
    t.equal(b.bridge.stats().slotsInUse, 0);
    t.equal((await b.cmd('get_ui_state')).status, 200);
  });
});
