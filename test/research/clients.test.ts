// decisions §12 from the clients: the typed client's step, worldHash, savepoint, rewind and
// savepointDrop (the control ones sent with an Idempotency-Key, so a retried step never runs twice),
// and `gcb step N` / `gcb hash`, readable on a terminal and JSON in a pipe, with their usage errors.
import t from 'tap';
import { BridgeCallError, createClient } from '../../src/client/index.ts';
import { KEYED_COMMANDS } from '../../src/client/commands.ts';
import { EXIT, EXIT_BY_CODE } from '../../src/cli/exit-codes.ts';
import { gcbIn } from '../gcb/helpers.ts';
import { startResearch } from './helpers.ts';

t.setTimeout(120_000);

const b = await startResearch(t, { clock: 'lockstep' });

t.test('the typed client: step, worldHash, savepoint, rewind, savepointDrop', async (t) => {
  const client = createClient({ url: b.bridge.url, token: b.token });
  t.equal((await client.capabilities()).clock, 'lockstep');
  const start = await client.worldHash();
  const saved = await client.savepoint('start');
  t.match(saved, { tick: start.tick, hash: start.hash, label: 'start' });
  const stepped = await client.step(100);
  t.same([stepped.ticks, stepped.tick - stepped.tick_before], [100, 100]);
  const rewound = await client.rewind(saved.id);
  t.same(rewound, { id: saved.id, from_tick: stepped.tick, tick: start.tick, hash: start.hash });
  t.equal((await client.step(100)).hash, stepped.hash, 'the same 100 ticks again: the same hash');
  t.same(await client.savepointDrop(saved.id), { id: saved.id, dropped: true });
  const gone = await client.rewind(saved.id).catch((err: unknown) => err);
  t.type(gone, BridgeCallError);
  t.match(gone, { code: 'GAME_REJECTED', status: 422, message: /known savepoints: none/ });
  const unnamed = await client.savepoint();
  t.notOk('label' in unnamed);
  for (const name of ['step', 'savepoint', 'rewind', 'savepoint_drop']) t.ok(KEYED_COMMANDS.has(name), `${name} is sent with an Idempotency-Key`);
  t.notOk(KEYED_COMMANDS.has('world_hash'), 'a read is not');
});

t.test('a keyed step sent twice runs once: the second gets the first answer', async (t) => {
  const client = createClient({ url: b.bridge.url, token: b.token });
  const before = await client.worldHash();
  const first = await client.step(5, { idempotencyKey: 'step-once' });
  const again = await client.step(5, { idempotencyKey: 'step-once' });
  t.same(again, first);
  t.equal((await client.worldHash()).tick, before.tick + 5, 'five ticks ran, not ten');
});

t.test('gcb step N and gcb hash', async (t) => {
  const env = { GCB_TOKEN: b.token };
  const url = ['--url', b.bridge.url];
  const before = JSON.parse((await gcbIn(['hash', ...url], { env })).stdout);
  t.match(before, { ok: true, result: { tick: Number, hash: /^[0-9a-f]{16}$/ } }, 'a pipe gets the envelope');
  const readable = await gcbIn(['step', '100', ...url], { env, isTTY: true });
  t.equal(readable.code, EXIT.OK);
  const tick = before.result.tick;
  t.match(readable.stdout, new RegExp(`^tick ${tick} → ${tick + 100} \\(100 ticks\\), hash [0-9a-f]{16}\\n$`));
  const hash = await gcbIn(['hash', ...url], { env, isTTY: true });
  t.equal(hash.stdout, `tick ${tick + 100}, hash ${readable.stdout.slice(-17, -1)}\n`, 'gcb hash agrees with the step');
  const json = JSON.parse((await gcbIn(['step', '1', '--json', ...url], { env, isTTY: true })).stdout);
  t.match(json, { ok: true, result: { ticks: 1, tick: tick + 101 }, tick: tick + 101 });
  const zero = await gcbIn(['step', '0', ...url], { env, isTTY: true });
  t.equal(zero.code, EXIT_BY_CODE.BAD_ARGS, 'the bridge judges the number');
  t.match(zero.stderr, /BAD_ARGS .*ticks must be >= 1/);
  for (const argv of [['step'], ['step', 'many'], ['step', '1', '2']]) {
    const usage = await gcbIn([...argv, ...url], { env });
    t.equal(usage.code, EXIT.USAGE, argv.join(' '));
    t.match(usage.stderr, /step needs one number of ticks: gcb step 100/);
  }
  for (const sub of ['step', 'hash']) t.match((await gcbIn([sub, '--help'])).stdout, new RegExp(`^usage: gcb ${sub}`));
  t.match((await gcbIn(['--help'])).stdout, /\n {2}step N +run N simulation ticks now/);
  t.match((await gcbIn(['serve', '--help'])).stdout, /--lockstep/);
});

t.test('gcb step on a realtime bridge that runs: the refusal and its exit code', async (t) => {
  const realtime = await startResearch(t, { clock: 'realtime' });
  const refused = await gcbIn(['step', '10', '--url', realtime.bridge.url], { env: { GCB_TOKEN: realtime.token }, isTTY: true });
  t.equal(refused.code, EXIT_BY_CODE.GAME_REJECTED);
  t.match(refused.stderr, /GAME_REJECTED .*pause first, or start with --lockstep/);
});
