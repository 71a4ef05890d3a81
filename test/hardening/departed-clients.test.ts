// decisions §14, cancellation over HTTP: a POST /cmd whose client closed its connection before its
// command started is taken off the queue, never runs and frees its slot, queued on the game thread
// (behind a long step) or waiting for a pool thread; a keyed retry of it then runs afresh. A client
// leaving while waiting for a slot is test/hardening/aborts.test.ts's.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { HOLD, HOLD_COUNTERS_BYTES, serveHoldCounters } from '../fixtures/hardening-commands.ts';
import { startTestBridge, tempDir, until, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { RESEARCH_GAME } from '../research/helpers.ts';
import { HARDENING_COMMANDS } from './helpers.ts';

t.setTimeout(180_000);

/** POST /cmd on a socket of its own, so the test can close it as a client going away does. */
function openRequest(b: TestBridge, body: object, headers: Record<string, string> = {}): { socket: Socket; answered: Promise<string | null> } {
  const json = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const socket = connect(b.bridge.port, '127.0.0.1');
  socket.on('connect', () =>
    socket.write(
      `POST /cmd HTTP/1.1\r\nHost: 127.0.0.1:${b.bridge.port}\r\nAuthorization: Bearer ${b.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n${extra}\r\n${json}`,
    ),
  );
  let data = '';
  const answered = new Promise<string | null>((resolve) => {
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    socket.on('close', () => resolve(data === '' ? null : data));
    socket.on('error', () => {});
  });
  return { socket, answered };
}

t.test('queued on the game thread behind a long step', async (t) => {
  const dir = tempDir('gcb-departed-');
  writeConfig(dir, { clock: 'lockstep' });
  const b = await startTestBridge(t, { game: RESEARCH_GAME, gameOptions: { msPerTick: 5 }, configDir: dir });
  const population = async () => (await b.cmd('get_world_state')).body.result.population_alive as number;
  const tick = async () => ((await (await b.fetch('/health')).json()) as { tick: number }).tick;

  /** A step of about 2 s, started (its first tick has run); `answer` is its answer. */
  const longStep = async () => {
    const before = await tick();
    const answer = b.cmd('step', { ticks: 400 });
    await until(() => b.bridge.stats().dispatcherPending === 1, 10_000, 'the step to be queued');
    for (let now = before; now === before;) now = await tick();
    return { answer };
  };

  await t.test('the action never runs, no command record says it did, and its slot is free while the step still runs', async (t) => {
    const before = await population();
    const step = await longStep();
    const spawn = openRequest(b, { name: 'spawn', args: { entity_id: 'walker', x: 3, y: 3 } });
    await until(() => b.bridge.stats().dispatcherPending === 2 && b.bridge.stats().slotsInUse === 2, 10_000, 'the spawn to be queued behind the step');
    spawn.socket.destroy();
    t.equal(await spawn.answered, null, 'the client left before any answer');
    await until(() => b.bridge.stats().slotsInUse === 1, 10_000, "the spawn's slot to be free");
    t.ok((await tick()) < 400, 'freed while the step still ran');
    const stepped = await step.answer;
    t.equal(stepped.status, 200);
    t.equal(stepped.body.result.ticks, 400);
    t.equal(await population(), before, 'the spawn never ran');
    await until(() => b.bridge.stats().dispatcherPending === 0, 10_000, "the spawn's cell to come back");
    const records = (await b.cmd('recv_events', { kinds: ['command'], max: 1000 })).body.result.items as Array<{ name: string }>;
    t.same(
      records.filter((r) => r.name === 'spawn'),
      [],
      'no command record of the spawn',
    );
    const line = b.logs.find((l) => l.command === 'spawn');
    t.match(line, { status: 503, code: 'BUSY' }, 'its log line says it was answered BUSY (nothing reached the world)');
  });

  await t.test('a keyed retry of it runs afresh: the dropped request kept no answer', async (t) => {
    const before = await population();
    const key = { 'idempotency-key': 'spawn-once-0001' };
    const step = await longStep();
    const spawn = openRequest(b, { name: 'spawn', args: { entity_id: 'walker', x: 4, y: 4 } }, key);
    await until(() => b.bridge.stats().dispatcherPending === 2 && b.bridge.stats().slotsInUse === 2, 10_000, 'the spawn to be queued behind the step');
    spawn.socket.destroy();
    await until(() => b.bridge.stats().slotsInUse === 1, 10_000, "the spawn's slot to be free");
    await step.answer;
    const retry = await b.cmd('spawn', { entity_id: 'walker', x: 4, y: 4 }, { headers: key });
    t.equal(retry.status, 200);
    t.equal(retry.headers.get('idempotent-replayed'), null, 'it ran: nothing was kept to replay');
    t.equal(await population(), before + 1, 'once');
    const again = await b.cmd('spawn', { entity_id: 'walker', x: 4, y: 4 }, { headers: key });
    t.equal(again.headers.get('idempotent-replayed'), 'true', "the retry's answer is the one kept");
    t.equal(await population(), before + 1);
  });
});

t.test('waiting for a pool thread: the task never starts', async (t) => {
  const dir = tempDir('gcb-departed-');
  writeConfig(dir, { maxConcurrent: 20 });
  const counters = new SharedArrayBuffer(HOLD_COUNTERS_BYTES);
  const held = new Int32Array(counters);
  t.teardown(serveHoldCounters(counters));
  // One pool thread running 16 tasks at once (POOL_SETTINGS): a 17th waits in the pool's queue.
  const b = await startTestBridge(t, { configDir: dir, commandModules: [HARDENING_COMMANDS], poolThreads: 1 });
  const holders = Array.from({ length: 16 }, () => b.cmd('hold', { gate: true }));
  await until(() => Atomics.load(held, HOLD.inFlight) === 16, 20_000, 'the holders to run');
  const waiting = openRequest(b, { name: 'hold', args: { ms: 0 } });
  await until(() => b.bridge.stats().slotsInUse === 17, 10_000, 'the 17th to be admitted');
  waiting.socket.destroy();
  await until(() => b.bridge.stats().slotsInUse === 16, 10_000, "the 17th's slot to be free");
  t.equal(Atomics.load(held, HOLD.runs), 16, 'it had not started');
  Atomics.store(held, HOLD.gate, 1);
  Atomics.notify(held, HOLD.gate);
  t.same(
    (await Promise.all(holders)).map((answer) => answer.status),
    Array(16).fill(200),
  );
  // The pool takes the withdrawn task after the holders and finds it so: it returns without running.
  await until(() => Atomics.load(held, HOLD.finished) === 16 && b.bridge.stats().slotsInUse === 0, 10_000, 'everything to settle');
  t.equal((await b.cmd('hold', { ms: 0 })).status, 200, 'the pool serves');
  t.equal(Atomics.load(held, HOLD.runs), 17, 'and only that request ran after the holders: the withdrawn one never did');
});
