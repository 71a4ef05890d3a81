// decisions §13 over HTTP: an agent reads and parses one large body (over 64 KiB) at a time. Its
// second large request waits while its first is still arriving; another agent's large request and
// the same agent's small ones do not wait; both of its own are answered once the first body is in.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';

t.setTimeout(120_000);

/** A /cmd body of `bytes` bytes: an unknown command whose args pad it out. */
function bigBody(bytes: number): string {
  const head = '{"name":"no_such_command","args":{"pad":"';
  const tail = '"}}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** Sends headers and part of a body by hand; resolves the whole raw answer once the socket ends. */
function partialRequest(url: string, agentId: string, body: string, sentBytes: number): { socket: Socket; answer: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let raw = '';
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk) => {
      raw += chunk.toString();
      if (/\r\n\r\n[\s\S]*\}\s*$/.test(raw)) resolve(raw);
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(raw));
  });
  socket.write(
    `POST /cmd HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token(agentId)}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.slice(0, sentBytes));
  return { socket, answer };
}

const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

t.test("an agent's large bodies are read one at a time; nobody else waits for them", async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god'), agent('ares', 'faction_player'), agent('athena', 'faction_player')] }, { game: TINY_GAME });
  const body = bigBody(200_000);
  const slow = partialRequest(ma.b.bridge.url, 'ares', body, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 300)); // its headers are in: it holds ares's turn

  const second = ma.b.cmd('no_such_command', { pad: 'y'.repeat(150_000) }, { headers: { authorization: `Bearer ${token('ares')}` } });
  const athena = await ma.b.cmd('no_such_command', { pad: 'z'.repeat(150_000) }, { headers: { authorization: `Bearer ${token('athena')}` } });
  t.equal(athena.status, 404, "another agent's large body is read at once");
  const small = await ma.as('ares', 'whoami');
  t.equal(small.status, 200, "the same agent's small request does not wait");
  t.notOk(await settledWithin(second, 1_500), "ares's second large body waits while its first is still arriving");

  slow.socket.write(body.slice(10_000));
  t.match(await slow.answer, /^HTTP\/1\.1 404 /, 'the first is answered once its body is in');
  t.equal((await second).status, 404, 'then the second is read and answered');
  slow.socket.destroy();
});

t.test('a client that gives up on its large body frees its turn', async (t) => {
  const ma = await startAgents(t, { agents: [agent('dm', 'god'), agent('ares', 'faction_player')] }, { game: TINY_GAME });
  const body = bigBody(200_000);
  const slow = partialRequest(ma.b.bridge.url, 'ares', body, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = ma.b.cmd('no_such_command', { pad: 'y'.repeat(150_000) }, { headers: { authorization: `Bearer ${token('ares')}` } });
  slow.socket.destroy();
  t.equal((await second).status, 404, 'the next large body is read once the first connection is gone');
});
