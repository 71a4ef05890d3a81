// decisions §13 and §15 over HTTP: the transfer gate paces all of an agent's body bytes together,
// whatever their sizes. One player sending 65,000-byte bodies (each just under the 64 KiB that
// makes a body large) on 16 connections has its bodies read at no more than the one-agent rate
// (16 MiB/s, plus the gate's allowance and one body), and another player's whoami median stays
// within 3× of its idle median (or a few ms over it on a loaded machine): nobody starves.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import t, { type Test } from 'tap';
import { TINY_GAME } from '../helpers/bridge.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';
import { DEFAULT_TIMINGS, LIMITS } from '../../src/limits.ts';

t.setTimeout(120_000);

const BODY_BYTES = 65_000;
const CONNECTIONS = 16;
const ATTACK_MS = 3_000;
/** The one-agent rate, bytes a ms: a MiB for every transferRestMsPerMiB. */
const BYTES_PER_MS = (1024 * 1024) / DEFAULT_TIMINGS.transferRestMsPerMiB;

function body(bytes: number): string {
  const head = '{"name":"no_such_command","args":{"pad":"';
  const tail = '"}}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** POST /cmd on a kept-alive connection; resolves with the status once the answer is read. */
function post(url: string, connection: Agent, agentId: string, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/cmd`,
      {
        method: 'POST',
        agent: connection,
        headers: { authorization: `Bearer ${token(agentId)}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * CONNECTIONS kept-alive connections, each sending `payload` as ares back to back for ATTACK_MS, in
 * a child process: the bodies answered, their statuses and the time from the first sent to the
 * last answered.
 */
async function flood(url: string, bearer: string, payload: string): Promise<{ answered: number; statuses: Record<string, number>; elapsedMs: number }> {
  const script = `
    const { Agent, request } = require('node:http');
    const { URL, TOKEN, CONNECTIONS, ATTACK_MS } = process.env;
    const payload = require('node:fs').readFileSync(0);
    const agent = new Agent({ keepAlive: true, maxSockets: Number(CONNECTIONS) });
    const statuses = {};
    let answered = 0;
    const post = () => new Promise((resolve, reject) => {
      const req = request(URL + '/cmd', { method: 'POST', agent, headers: { authorization: 'Bearer ' + TOKEN, 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
      req.end(payload);
    });
    const t0 = performance.now();
    const until = t0 + Number(ATTACK_MS);
    Promise.all(Array.from({ length: Number(CONNECTIONS) }, async () => {
      while (performance.now() < until) {
        const status = await post();
        statuses[status] = (statuses[status] || 0) + 1;
        answered++;
      }
    })).then(() => {
      process.stdout.write(JSON.stringify({ answered, statuses, elapsedMs: performance.now() - t0 }));
      agent.destroy();
    });
  `;
  const child = spawn(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH ?? '', URL: url, TOKEN: bearer, CONNECTIONS: String(CONNECTIONS), ATTACK_MS: String(ATTACK_MS) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stdin.end(payload);
  const code = await new Promise((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the flood exited ${String(code)}: ${out}`);
  return JSON.parse(out) as { answered: number; statuses: Record<string, number>; elapsedMs: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** athena's whoami, one after another with a short pause, until `running()` is false: each latency. */
async function whoamis(url: string, running: () => boolean, atLeast = 0): Promise<number[]> {
  const connection = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const payload = '{"name":"whoami"}';
  while (running() || latencies.length < atLeast) {
    const t0 = performance.now();
    const status = await post(url, connection, 'athena', payload);
    if (status !== 200) throw new Error(`athena's whoami answered ${status}`);
    latencies.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  connection.destroy();
  return latencies;
}

const AGENTS = { agents: [agent('dm', 'god'), agent('ares', 'faction_player'), agent('athena', 'faction_player')] };

/** ares's flood against `url`: its bytes read, checked against `bytesPerMs` (plus the allowance and one body). */
async function floodWithin(t: Test, url: string, bytesPerMs: number) {
  // The flood comes from a process of its own, as another client would: in this one it would
  // share the bridge's main loop and slow itself down.
  const { statuses, answered, elapsedMs } = await flood(url, token('ares'), body(BODY_BYTES));
  t.same(Object.keys(statuses), ['404'], 'every flood body was read and parsed (an unknown command: 404)');
  const bytes = answered * BODY_BYTES;
  const bound = bytesPerMs * elapsedMs + LIMITS.largeBodyBytes + BODY_BYTES;
  const mib = (n: number) => (n / 2 ** 20).toFixed(2);
  t.ok(
    bytes <= bound,
    `ares's bodies read: ${mib(bytes)} MiB in ${(elapsedMs / 1000).toFixed(2)} s (${mib(bytes / (elapsedMs / 1000))} MiB/s), ` +
      `within ${mib(bytesPerMs * 1000)} MiB/s and one body: ${mib(bound)} MiB`,
  );
  return { bytes, elapsedMs };
}

t.test('65,000-byte bodies on 16 connections are read at the one-agent rate in all (a rate the test sets: 1 MiB/s)', async (t) => {
  const restMsPerMiB = 1_000;
  const ma = await startAgents(t, AGENTS, { game: TINY_GAME, timings: { transferRestMsPerMiB: restMsPerMiB } });
  t.ok(BODY_BYTES <= LIMITS.largeBodyBytes, 'each body is small: under the size that makes a body large');
  const bytesPerMs = (1024 * 1024) / restMsPerMiB;
  const { bytes, elapsedMs } = await floodWithin(t, ma.b.bridge.url, bytesPerMs);
  t.ok(bytes >= bytesPerMs * elapsedMs * 0.25, 'and it was not stopped either: it moved a fair part of its rate');
});

t.test("at the bridge's own rate (16 MiB/s) too, and another player's whoami does not starve", async (t) => {
  const ma = await startAgents(t, AGENTS, { game: TINY_GAME });
  const url = ma.b.bridge.url;
  await whoamis(url, () => false, 20); // warm-up
  const before = median(await whoamis(url, () => false, 60));
  let attacking = true;
  const underAttack = whoamis(url, () => attacking);
  await floodWithin(t, url, BYTES_PER_MS);
  attacking = false;
  const latencies = await underAttack;
  // Idle again after: the machine is shared, so its load may have changed over the attack; the
  // slower of the two idle medians is the one to compare with.
  const after = median(await whoamis(url, () => false, 60));
  const idle = Math.max(before, after);
  const attacked = median(latencies);
  t.ok(latencies.length >= 10, `athena got ${latencies.length} whoami answered during the attack`);
  // Generous, for a shared 2-core machine: within 3× of idle, or 15 ms over it when idle is only a
  // few ms (starved, it took 135 ms). The bench row measures it on a quiet machine.
  t.ok(
    attacked <= Math.max(3 * idle, idle + 15),
    `athena's whoami median ${attacked.toFixed(2)} ms under attack, within 3× (or 15 ms over) ${idle.toFixed(2)} ms idle (${before.toFixed(2)} before, ${after.toFixed(2)} after)`,
  );
});
