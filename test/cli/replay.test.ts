// decisions §12 and §15, `gcb replay` against a bridge faked at its fetch: a step the bridge stops
// early (`stopped: "yielded"`) is stepped again for the rest, and a record whose step yielded while
// it was recorded is replayed with the ticks it ran, so every hash lands on its tick; a record whose
// rewinds would step past --max-ticks is stopped before it does; every refusal of the file reaches
// no bridge at all (exit 5); a step that runs nothing ends the replay; an interrupt ends it (130).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { BridgeClient } from '../../src/client/client.ts';
import { runReplay } from '../../src/cli/replay.ts';
import { MOD_VERSION } from '../../src/version.ts';

/** The fake world's digest: its tick and what was spawned, as 16 hex. */
const hashOf = (tick: number, spawned = 0) => (tick * 1000 + spawned).toString(16).padStart(16, '0');

interface FakeOptions {
  /** A step runs at most this many ticks, then answers `stopped: "yielded"`. */
  yieldAfter?: number;
  /** Every step answers this many ticks run, whatever it was asked. */
  ticksRun?: number;
  /** Steps never answer until their request is aborted. */
  hangSteps?: boolean;
}

/** A lockstep bridge reduced to what a replay asks of it, with every request it got. */
function fakeBridge(options: FakeOptions = {}) {
  const world = { tick: 0, spawned: 0 };
  const savepoints = new Map<number, { tick: number; spawned: number }>();
  const requests: Array<{ name: string; args: Record<string, any> }> = [];
  const answer = (result: unknown) => new Response(JSON.stringify({ ok: true, result, tick: world.tick }), { status: 200 });
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const { name, args = {} } = JSON.parse(String(init?.body)) as { name: string; args?: Record<string, any> };
    requests.push({ name, args });
    switch (name) {
      case 'generate_world':
        Object.assign(world, { tick: 0, spawned: 0 });
        return answer({ width: args.zone_x * 64, height: args.zone_y * 64, seed: args.seed });
      case 'world_hash':
        return answer({ tick: world.tick, hash: hashOf(world.tick, world.spawned) });
      case 'spawn':
        world.spawned += args.count as number;
        return answer({ spawned: args.count });
      case 'savepoint': {
        const id = savepoints.size + 1;
        savepoints.set(id, { ...world });
        return answer({ id, tick: world.tick, hash: hashOf(world.tick, world.spawned), bytes: 1 });
      }
      case 'rewind':
        Object.assign(world, savepoints.get(args.id as number));
        return answer({ id: args.id, tick: world.tick, hash: hashOf(world.tick, world.spawned) });
      case 'step': {
        if (options.hangSteps) {
          return new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
        }
        const before = world.tick;
        const ran = options.ticksRun ?? Math.min(args.ticks as number, options.yieldAfter ?? Infinity);
        world.tick += ran;
        const result: Record<string, unknown> = { tick_before: before, tick: world.tick, ticks: ran, hash: hashOf(world.tick, world.spawned) };
        if (ran < (args.ticks as number)) result.stopped = 'yielded';
        return answer(result);
      }
      default:
        return new Response(JSON.stringify({ ok: false, error: { code: 'UNKNOWN_COMMAND', message: name } }), { status: 404 });
    }
  };
  return {
    client: new BridgeClient({ url: 'http://127.0.0.1:9', token: 'fake-token', fetch: fetch as typeof globalThis.fetch }),
    requests,
    steps: () => requests.filter((r) => r.name === 'step').map((r) => r.args.ticks as number),
  };
}

const header = (extra: Record<string, unknown> = {}) => ({
  format: 1,
  mod_version: MOD_VERSION,
  game: 'fake',
  seed: 5,
  width: 128,
  height: 128,
  tick: 0,
  hash: hashOf(0),
  ...extra,
});
const command = (tick: number, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  tick,
  order: 0,
  agent: 'a',
  name,
  args,
  code: null,
  ...extra,
});
const hash = (tick: number, spawned = 0) => ({ tick, hash: hashOf(tick, spawned) });
const end = (tick: number, spawned = 0) => ({ ...hash(tick, spawned), end: 'record_stop', lines: 9 });

function recordFile(t: Test, lines: unknown[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-replay-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'record.jsonl');
  writeFileSync(file, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  return file;
}

async function replayed(file: string, client: BridgeClient, extra: { maxTicks?: number; signal?: AbortSignal } = {}) {
  let out = '';
  let err = '';
  const code = await runReplay({ file, client, out: (text) => void (out += text), err: (text) => void (err += text), ...extra });
  return { code, out, err };
}

t.test('a step the replaying bridge stops early is stepped again for the rest: every hash lands on its tick', async (t) => {
  const fake = fakeBridge({ yieldAfter: 30 });
  const file = recordFile(t, [
    header(),
    command(0, 'spawn', { count: 2 }),
    command(0, 'step', { ticks: 100 }),
    hash(100, 2),
    command(100, 'step', { ticks: 50 }),
    hash(150, 2),
    end(150, 2),
  ]);
  const run = await replayed(file, fake.client);
  t.equal(run.code, 0, run.err);
  t.match(run.out, /^replay matched: 3 commands/);
  t.same(fake.steps(), [100, 70, 40, 10, 50, 20], 'each step asked again for what it had left');
});

t.test('a step that yielded while recorded is replayed for the ticks it ran, then its caller’s next step', async (t) => {
  const lines = [header(), command(0, 'step', { ticks: 100 }), hash(40), command(40, 'step', { ticks: 60 }, { order: 1 }), hash(100), end(100)];
  const quiet = fakeBridge();
  const run = await replayed(recordFile(t, lines), quiet.client);
  t.equal(run.code, 0, run.err);
  t.same(quiet.steps(), [40, 60], 'on a bridge where nothing waits, the first step runs only the 40 ticks it ran when recorded');

  const busy = fakeBridge({ yieldAfter: 25 });
  const again = await replayed(recordFile(t, lines), busy.client);
  t.equal(again.code, 0, again.err);
  t.same(busy.steps(), [40, 15, 60, 35, 10], 'and yielding here too, each is stepped again for the rest');
});

t.test('a refused step is sent as recorded and must be refused again', async (t) => {
  const fake = fakeBridge();
  const lines = [header(), command(0, 'step', { ticks: 0 }, { code: 'BAD_ARGS' }), command(0, 'step', { ticks: 5 }), hash(5), end(5)];
  // The fake runs any step; the record says the first was refused.
  const run = await replayed(recordFile(t, lines), fake.client);
  t.equal(run.code, 6);
  t.equal(run.err, 'gcb replay: differs at tick 0, order 0: step answered ok, the record has BAD_ARGS\n');
});

t.test('rewinds that send the world back past what the lines show stop before --max-ticks is stepped', async (t) => {
  const fake = fakeBridge();
  const rewinds = Array.from({ length: 6 }, () => [command(1000, 'rewind', { id: 1 }), hash(1000)]).flat();
  const lines = [header(), command(0, 'savepoint', {}, { id: 1 }), command(0, 'step', { ticks: 1000 }), hash(1000), ...rewinds, end(1000)];
  const run = await replayed(recordFile(t, lines), fake.client, { maxTicks: 3_500 });
  t.equal(run.code, 5, 'exit 5: the record asks for what it does not show');
  t.match(run.err, /stopped before stepping past --max-ticks 3500 ticks in all/);
  const stepped = fake.steps().reduce((a, b) => a + b, 0);
  t.ok(stepped <= 3_500, `it stepped ${stepped} ticks, within --max-ticks`);
  t.equal(stepped, 3_000, 'every step that fitted ran');
});

t.test('every refusal of the file reaches no bridge: exit 5 in one line', async (t) => {
  const body = [command(0, 'spawn', { count: 1 }), hash(0, 1), end(0, 1)];
  let deep = '{}';
  for (let i = 0; i < 40; i++) deep = `{"a":${deep}}`;
  const cases: Array<[string, unknown[], RegExp, number?]> = [
    ['save_world', [header(), command(0, 'save_world', { folder: 'x' }), ...body], /line 2 runs save_world, which no record holds/],
    ['record_start', [header(), command(0, 'record_start', { name: 'x' }), ...body], /line 2 runs record_start/],
    [
      'a save_world in a batch',
      [header(), command(0, 'batch', { commands: [{ name: 'world_hash' }, { name: 'save_world' }] }), ...body],
      /line 2: batch's commands\[1\] runs save_world/,
    ],
    ['a header past tick 1,000,000', [header({ tick: 1_000_001 }), ...body], /header's tick 1000001 is above 1000000/],
    [
      'ticks above --max-ticks',
      [header(), command(0, 'step', { ticks: 10_000 }), hash(10_000), end(10_000)],
      /steps 10000 ticks in all .*above --max-ticks 9999/,
      9_999,
    ],
    ['args 40 deep', [header(), `{"tick":0,"order":0,"agent":"a","name":"spawn","args":${deep},"code":null}`, ...body], /line 2 nests deeper than 32 levels/],
    ['a negative seed', [header({ seed: -1 }), ...body], /header's seed -1 is not one generate_world takes \(an integer from 0 to 2147483647\)/],
    ['a width of no world', [header({ width: 100 }), ...body], /header's width 100 is no size generate_world makes \(128 to 1024 tiles, in steps of 64\)/],
    ['a height of no world', [header({ height: 2048 }), ...body], /header's height 2048 is no size/],
    ['no seed', [header({ seed: null }), ...body], /names no seed and size/],
  ];
  for (const [what, lines, message, maxTicks] of cases) {
    const fake = fakeBridge();
    const run = await replayed(recordFile(t, lines), fake.client, maxTicks === undefined ? {} : { maxTicks });
    t.equal(run.code, 5, `${what}: exit 5`);
    t.match(run.err, message, what);
    t.equal(run.err.split('\n').length, 2, `${what}: one line`);
    t.same(fake.requests, [], `${what}: no request reached the bridge`);
  }
  const honest = fakeBridge();
  const allowed = await replayed(recordFile(t, [header(), command(0, 'step', { ticks: 10_000 }), hash(10_000), end(10_000)]), honest.client, {
    maxTicks: 10_000,
  });
  t.equal(allowed.code, 0, 'exactly --max-ticks is allowed');
});

t.test('a file that is no record is refused unread: a FIFO (never waited on), a folder, one larger than a record stops at', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-replay-files-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'fifo.jsonl');
  execFileSync('mkfifo', [fifo]);
  mkdirSync(join(dir, 'folder.jsonl'));
  const huge = join(dir, 'huge.jsonl');
  writeFileSync(huge, '');
  truncateSync(huge, 256 * 1024 * 1024 + 1); // sparse: no disk used
  for (const [file, message] of [
    [fifo, /fifo\.jsonl: is not a regular file/],
    [join(dir, 'folder.jsonl'), /folder\.jsonl: is not a regular file/],
    [huge, /huge\.jsonl: is 268435457 bytes, above the 268435456 a record stops at/],
    [join(dir, 'missing.jsonl'), /missing\.jsonl: no such file/],
  ] as const) {
    const fake = fakeBridge();
    const run = await replayed(file, fake.client);
    t.equal(run.code, 5, file);
    t.match(run.err, message);
    t.same(fake.requests, []);
  }
});

t.test('a step that answers no tick run ends the replay instead of asking for ever', async (t) => {
  const fake = fakeBridge({ ticksRun: 0 });
  const run = await replayed(recordFile(t, [header(), command(0, 'step', { ticks: 10 }), hash(10), end(10)]), fake.client);
  t.equal(run.code, 6);
  t.equal(run.err, 'gcb replay: differs at tick 0: a step answered 0 ticks run\n');
});

t.test('an interrupt ends the replay where it waits: exit 130, and the bridge at --url is left as it is', async (t) => {
  const fake = fakeBridge({ hangSteps: true });
  const stop = new AbortController();
  const running = replayed(recordFile(t, [header(), command(0, 'step', { ticks: 10 }), hash(10), end(10)]), fake.client, { signal: stop.signal });
  while (fake.steps().length === 0) await new Promise((resolve) => setImmediate(resolve));
  stop.abort('SIGINT');
  const run = await running;
  t.equal(run.code, 130);
  t.equal(run.err, 'gcb replay: interrupted (SIGINT) before its end: the bridge at --url keeps what ran\n');
});
