// decisions §13 over HTTP: an agent reads and parses one large body (over 64 KiB) at a time. Its
// second large request waits while its first is still arriving; another agent's large request and
// the same agent's small ones do not wait; both of its own are answered once the first body is in.
// decisions §15: every body read and answer built counts against the agent's rate; past the
// allowance (one large body's bytes, which small ones stay within) its next request waits for the
// rest, and other agents' requests go on.
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

/** A rest long enough to see over HTTP on a loaded machine: 4 s a MiB (the bridge's is 62.5 ms). */
const SLOW_PACE = { transferRestMsPerMiB: 4_000 };

/** `request` sent now; resolves with its status and the ms it took. */
async function timed(request: Promise<{ status: number }>): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const { status } = await request;
  return { status, ms: performance.now() - t0 };
}

t.test('a large body rests its agent: its next request waits, another agent passes', async (t) => {
  const agents = { agents: [agent('dm', 'god'), agent('ares', 'faction_player'), agent('athena', 'faction_player')] };
  const ma = await startAgents(t, agents, { game: TINY_GAME, timings: SLOW_PACE });
  const bytes = 262_144; // a quarter MiB: a rest of 1 s
  const large = await ma.b.cmd('no_such_command', { pad: 'x'.repeat(bytes - 50) }, { headers: { authorization: `Bearer ${token('ares')}` } });
  t.equal(large.status, 404);

  const order: string[] = [];
  const ares = timed(ma.as('ares', 'whoami')).then((answer) => (order.push('ares'), answer));
  const athena = timed(ma.as('athena', 'whoami')).then((answer) => (order.push('athena'), answer));
  const [aresAnswer, athenaAnswer] = await Promise.all([ares, athena]);
  t.equal(aresAnswer.status, 200, 'the resting agent is answered after its rest');
  t.equal(athenaAnswer.status, 200);
  t.same(order, ['athena', 'ares'], 'athena, sent after ares, is answered first');
  t.ok(aresAnswer.ms >= 700, `ares waited out most of its 1 s rest (${aresAnswer.ms.toFixed(0)} ms)`);
});

t.test('a large answer rests its agent too; small answers stay within its allowance', async (t) => {
  const agents = { agents: [agent('dm', 'god'), agent('ares', 'faction_player'), agent('athena', 'faction_player')] };
  const ma = await startAgents(t, agents, { game: TINY_GAME, timings: SLOW_PACE });
  const content = 'm'.repeat(4096);
  for (let i = 0; i < 24; i++) t.equal((await ma.as('ares', 'send_message', { to: 'ares', content })).status, 200);
  // 24 messages of 4 KiB: each read of them all is an answer of about 100 KB, over 64 KiB.
  const small = await timed(ma.as('ares', 'recv_messages', { since_seq: 0, max: 2 }));
  const quick = await timed(ma.as('ares', 'whoami'));
  t.ok(quick.ms < 1_000, `small answers leave no rest to wait out (${quick.ms.toFixed(0)} ms; a 100 KB one would cost 400 ms or more)`);
  t.equal(small.status, 200);

  const read = await ma.as('ares', 'recv_messages', { since_seq: 0, max: 24 });
  t.equal(read.status, 200);
  t.ok(JSON.stringify(read.body).length > 65_536, 'the answer is large');
  const order: string[] = [];
  const ares = timed(ma.as('ares', 'whoami')).then((answer) => (order.push('ares'), answer));
  const athena = timed(ma.as('athena', 'whoami')).then((answer) => (order.push('athena'), answer));
  const [aresAnswer] = await Promise.all([ares, athena]);
  t.same(order, ['athena', 'ares'], "ares's next request waits for the rest its answer cost; athena's does not");
  t.ok(aresAnswer.ms >= 250, `ares rested (${aresAnswer.ms.toFixed(0)} ms of about 390)`);
});
