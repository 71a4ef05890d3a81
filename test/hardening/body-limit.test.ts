// Body limit (decisions §5, `[Bridge] max_body_bytes`, 1 MiB): over the limit by Content-Length or
// while streaming a chunked body is 400 BAD_ARGS naming the limit, answered without buffering the
// rest; Content-Length with Transfer-Encoding gets Node's own 400; exactly the limit and the limit
// minus one are read and served.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startTestBridge } from '../helpers/bridge.ts';

t.setTimeout(90_000);

const LIMIT = 1024 * 1024;

interface Raw {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with the first complete response head + body (by Content-Length), or what came before close. */
  response: Promise<string>;
  closed: Promise<void>;
}

function open(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let settle!: (text: string) => void;
    const response = new Promise<string>((done) => (settle = done));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const head = data.indexOf('\r\n\r\n');
      if (head === -1) return;
      const length = /content-length: (\d+)/i.exec(data.slice(0, head));
      if (length && data.length >= head + 4 + Number(length[1])) settle(data);
    });
    socket.on('close', () => settle(data));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => data, response, closed }));
    socket.once('error', reject);
  });
}

function write(socket: Socket, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.write(chunk, () => resolve());
  });
}

function statusOf(text: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}

function bodyOf(text: string): any {
  const start = text.indexOf('\r\n\r\n');
  try {
    return JSON.parse(text.slice(start + 4));
  } catch {
    return undefined;
  }
}

t.test('body limit', async (t) => {
  const b = await startTestBridge(t);
  const port = b.bridge.port;
  const head = (extra: string) =>
    `POST /cmd HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${b.token}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  await t.test('Content-Length over 1 MiB: refused from the header, before a byte of the body is sent', async (t) => {
    for (const length of [LIMIT + 1, 2 * LIMIT, 100 * LIMIT, 2 ** 40]) {
      const raw = await open(port);
      await write(raw.socket, head(`Content-Length: ${length}\r\n`));
      // No body at all: a server that buffered first would wait here until its request timeout.
      const text = await raw.response;
      t.equal(statusOf(text), 400, `Content-Length ${length}`);
      t.match(bodyOf(text)?.error, { code: 'BAD_ARGS', message: /1048576-byte limit/ });
      raw.socket.destroy();
    }
    t.equal(b.bridge.stats().slotsInUse, 0);
  });

  await t.test('a chunked body over the limit: refused once the limit is passed, not after the whole body', async (t) => {
    const raw = await open(port);
    await write(raw.socket, head('Transfer-Encoding: chunked\r\n'));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    let sent = 0;
    let answered = false;
    void raw.response.then(() => (answered = true));
    // Offer up to 64 MiB; the answer must come long before that.
    for (let i = 0; i < 1024 && !answered && !raw.socket.destroyed; i++) {
      await write(raw.socket, frame);
      sent += chunk.length;
      if (i % 8 === 7) await new Promise((r) => setImmediate(r));
    }
    const text = await raw.response;
    t.equal(statusOf(text), 400);
    t.match(bodyOf(text)?.error, { code: 'BAD_ARGS', message: /1048576-byte limit/ });
    // Socket buffers on both sides hold some bytes in flight; the bound says the rest was not read.
    t.ok(sent < 8 * LIMIT, `answered after ${(sent / LIMIT).toFixed(2)} MiB of a 64 MiB body`);
    raw.socket.destroy();
    t.equal(b.bridge.stats().slotsInUse, 0);
  });

  await t.test('a chunked body of exactly the limit is read; one byte more is refused', async (t) => {
    for (const [size, status] of [
      [LIMIT, 200],
      [LIMIT + 1, 400],
    ] as const) {
      const json = '{"name":"get_ui_state"}';
      const body = Buffer.from(json + ' '.repeat(size - json.length));
      const raw = await open(port);
      await write(raw.socket, head('Transfer-Encoding: chunked\r\n'));
      for (let at = 0; at < body.length && !raw.socket.destroyed; at += 256 * 1024) {
        const part = body.subarray(at, at + 256 * 1024);
        await write(raw.socket, Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
      }
      await write(raw.socket, '0\r\n\r\n');
      const text = await raw.response;
      t.equal(statusOf(text), status, `chunked body of ${size} bytes`);
      raw.socket.destroy();
    }
  });

  await t.test('Content-Length with Transfer-Encoding: Node refuses it itself (400), and the bridge goes on', async (t) => {
    const raw = await open(port);
    await write(raw.socket, `${head('Content-Length: 25\r\nTransfer-Encoding: chunked\r\n')}19\r\n{"name":"get_ui_state"}  \r\n0\r\n\r\n`);
    const text = await raw.response;
    await raw.closed;
    t.equal(statusOf(text), 400, "Node's own 400");
    t.notMatch(text, /"ok":true/, 'the command was not run');
    t.equal((await b.cmd('get_ui_state')).status, 200, 'the next request is served');
  });

  await t.test('exactly the limit and the limit minus one, by Content-Length: read and served', async (t) => {
    for (const size of [LIMIT - 1, LIMIT]) {
      const json = '{"name":"get_ui_state"}';
      const body = json + ' '.repeat(size - json.length);
      const raw = await open(port);
      await write(raw.socket, head(`Content-Length: ${size}\r\n`));
      await write(raw.socket, body);
      const text = await raw.response;
      t.equal(statusOf(text), 200, `${size} bytes`);
      raw.socket.destroy();
    }
    const over = await open(port);
    await write(over.socket, head(`Content-Length: ${LIMIT + 1}\r\n`));
    t.equal(statusOf(await over.response), 400, 'the limit plus one is refused');
    over.socket.destroy();
    t.equal(b.bridge.stats().slotsInUse, 0);
  });

  t.same(
    b.logs.filter((line) => (line.level as number) >= 50),
    [],
    'no error was logged',
  );
});
