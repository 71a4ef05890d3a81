// decisions §12's promise across processes: two lockstep bridges, each its own OS process (`npm
// start -- --lockstep` on the sandbox, a fresh config dir, port 0 read from the runtime file), with
// the same seed and different fps, are sent one seeded random sequence of 1,000 steps with spawns,
// paint_tile, invoke_power, strikes on kingdoms' people, civilisations founding kingdoms and the
// world_peace law between them. One side alone is read between the commands (reads inside its
// batches, world_hash, recv_events, an open event stream); the hashes the steps answer must agree
// after every step, and so must every answer. Another seed gives another hash.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import t, { type Test } from 'tap';
import { readRuntime } from '../../src/shared/runtime-file.ts';
import { tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

// Two bridge processes started from cold beside this one, on a loaded 2-core machine.
t.setTimeout(240_000);

const SEED = 20_261_127;
const STEPS = 1000;
/** A 128×128 world (2×2 zones of 64 tiles): ticks stay cheap, and strikes reach a good part of it. */
const ZONES = 2;
const SIZE = ZONES * 64;
const CIVS = ['human', 'elf', 'orc', 'dwarf'];
const CREATURES = ['sheep', 'cow', 'chicken', 'rabbit', 'wolf', 'fox', ...CIVS];
const TILES = ['grass', 'sand', 'forest', 'hills', 'soil_low', 'shallow_water', 'lava', 'ash'];
const TOPS = ['tree_oak', 'bush', 'flowers', 'rock', 'none'];
const POWERS = ['lightning', 'fire', 'earthquake', 'rain', 'blessing', 'plague', 'fertilizer', 'plant_forest', 'raise_land', 'lower_land', 'spawn_wolf'];
/** Powers aimed at a kingdom's people: they kill them, so cities and kingdoms fall. */
const STRIKES = ['atomic_bomb', 'bomb', 'meteorite', 'lava_bucket', 'plague'];
const SPEEDS = ['x1', 'x2', 'x5', 'slow_mo'];

/** mulberry32: the sequence of commands comes from SEED alone. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (((z ^ (z >>> 14)) >>> 0) % n) | 0;
  };
}

interface Item {
  name: string;
  args?: Record<string, unknown>;
}

interface Bridge {
  child: ChildProcess;
  exited: Promise<number | null>;
  url: string;
  token: string;
  cmd(name: string, args?: unknown): Promise<{ status: number; body: any }>;
  ok(name: string, args?: unknown): Promise<any>;
}

/** `npm start -- --lockstep` in a child process, with [Game] seed and fps set in its own bridge.toml. */
async function startChild(t: Test, fps: number): Promise<Bridge> {
  const dir = tempDir('gcb-two-process-');
  const token = writeConfig(dir, { clock: 'lockstep', fps });
  const path = join(dir, 'bridge.toml');
  writeFileSync(path, readFileSync(path, 'utf8').replace('[Game]\n', `[Game]\nseed = ${SEED}\n`));
  // Logs go nowhere: the test reads answers, not log lines; stderr says why a start failed.
  const child = spawn(process.execPath, nodeArgs('src/main.ts', '--config-dir', dir, '--port', '0', '--lockstep'), {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  let url: string | undefined;
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`the bridge exited with ${child.exitCode}: ${stderr}`);
      const runtime = readRuntime(dir);
      if (runtime !== undefined && runtime.pid === child.pid && runtime.url) url = runtime.url;
      return url !== undefined;
    },
    120_000,
    'the bridge to name its URL in its runtime file',
  );
  // One kept-alive connection, node:http rather than fetch: this process's CPU is the machine's too.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const port = Number(new URL(url!).port);
  const cmd = (name: string, args?: unknown) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const body = JSON.stringify(args === undefined ? { name } : { name, args });
      const req = request(
        {
          host: '127.0.0.1',
          port,
          agent,
          method: 'POST',
          path: '/cmd',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (chunk: Buffer) => parts.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    child,
    exited,
    url: url!,
    token,
    cmd,
    async ok(name, args) {
      const answer = await cmd(name, args);
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.result;
    },
  };
}

/** Reads GET /events to its end in the background: the kinds seen, counted. */
function consumeEvents(b: Bridge, signal: AbortSignal): { kinds: Map<string, number>; done: Promise<void> } {
  const kinds = new Map<string, number>();
  const done = (async () => {
    const response = await fetch(`${b.url}/events`, { headers: { authorization: `Bearer ${b.token}` }, signal });
    if (response.status !== 200) throw new Error(`GET /events answered ${response.status}`);
    const decoder = new TextDecoder();
    let rest = '';
    try {
      for await (const chunk of response.body!) {
        rest += decoder.decode(chunk as Uint8Array, { stream: true });
        const lines = rest.split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line.startsWith('event: ')) kinds.set(line.slice(7), (kinds.get(line.slice(7)) ?? 0) + 1);
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  })();
  return { kinds, done };
}

/** The commands sent to both sides before one step: 0 to 3 of them, from the seeded sequence. */
function commandsFor(next: (n: number) => number, targets: Array<{ x: number; y: number }>): Item[] {
  const at = () => ({ x: next(SIZE), y: next(SIZE) });
  const items: Item[] = [];
  for (let n = next(4); n > 0; n--) {
    const roll = next(100);
    if (roll < 22) items.push({ name: 'spawn', args: { entity_id: CREATURES[next(CREATURES.length)], ...at(), count: 1 + next(12), adult: next(2) === 0 } });
    // Adult nomads found kingdoms of their own within a few dozen ticks.
    else if (roll < 37) items.push({ name: 'spawn', args: { entity_id: CIVS[next(CIVS.length)], ...at(), count: 8 + next(20), adult: true } });
    else if (roll < 52) {
      const top = next(3) === 0 ? { top_id: TOPS[next(TOPS.length)] } : {};
      items.push({ name: 'paint_tile', args: { ...at(), tile_id: TILES[next(TILES.length)], ...top, radius: next(5) } });
    } else if (roll < 70) {
      const radius = next(2) === 0 ? { radius: 1 + next(6) } : {};
      const power = POWERS[next(POWERS.length)]!;
      items.push({ name: 'invoke_power', args: { power_id: power, ...at(), ...(power === 'spawn_wolf' || power === 'lightning' ? {} : radius) } });
    } else if (roll < 85) {
      // A strike on someone of a kingdom (from the read side's last look), else at random.
      const target = targets.length > 0 ? targets[next(targets.length)]! : at();
      items.push({ name: 'invoke_power', args: { power_id: STRIKES[next(STRIKES.length)], x: target.x, y: target.y } });
    } else if (roll < 89) items.push({ name: 'invoke_power', args: { power_id: 'world_peace', x: 0, y: 0 } });
    else if (roll < 93) items.push({ name: next(2) === 0 ? 'pause' : 'resume' });
    else if (roll < 97) items.push({ name: 'set_speed', args: { speed_id: SPEEDS[next(SPEEDS.length)] } });
    else items.push({ name: 'dismiss_window' });
  }
  return items;
}

/** What the read side reads between the commands, inside its batch: every frame read the sandbox has. */
function readsFor(i: number): Item[] {
  const reads: Item[] = [
    { name: 'get_world_state' },
    { name: 'query_actors', args: { limit: 200, offset: i % 7 } },
    { name: 'list_kingdoms' },
    { name: 'list_cities' },
    { name: 'get_tile', args: { x: i % SIZE, y: (i * 7) % SIZE } },
    { name: 'get_ui_state' },
    { name: 'observe', args: { grid: 8 } },
    { name: 'world_hash' },
  ];
  return [reads[i % reads.length]!, reads[(i * 3 + 1) % reads.length]!];
}

t.test('two bridge processes, one seed, 1,000 steps: the same hash after every step, reads and events on one side only', async (t) => {
  const [read, bare] = await Promise.all([startChild(t, 60), startChild(t, 7)]);
  t.equal((await read.ok('world_hash')).hash, (await bare.ok('world_hash')).hash, 'the first worlds, of [Game] seed, agree');
  // A small world of the same seed on both sides, made in each process: the same world.
  const small = { zone_x: ZONES, zone_y: ZONES, seed: SEED };
  await Promise.all([read.ok('generate_world', small), bare.ok('generate_world', small)]);
  const [aStart, bStart] = await Promise.all([read.ok('world_hash'), bare.ok('world_hash')]);
  t.same(bStart, aStart, 'the same seed gives the same world in another process');
  const events = new AbortController();
  const stream = consumeEvents(read, events.signal);
  const next = random(SEED);
  let targets: Array<{ x: number; y: number }> = [];
  let cursor = 0;
  let received = 0;
  let stepped = 0;
  let commands = 0;
  let refused = 0;
  let ticks = 0;
  let parted: string | null = null;
  for (let i = 0; i < STEPS && parted === null; i++) {
    const items = commandsFor(next, targets);
    const reads = readsFor(i);
    // The read side's batch: its reads around the same commands, in one frame.
    // The last read gives the next strikes their targets: people of a kingdom.
    const readBatch = [reads[0]!, ...items, reads[1]!, { name: 'query_actors', args: { limit: 60, offset: (i * 13) % 40 } }];
    const [left, right] = await Promise.all([
      read.ok('batch', { commands: readBatch, stop_on_error: false }),
      items.length > 0 ? bare.ok('batch', { commands: items, stop_on_error: false }) : null,
    ]);
    const leftAnswers = (left.results as unknown[]).slice(1, 1 + items.length);
    if (right !== null && !isDeepStrictEqual(leftAnswers, right.results)) {
      parted = `step ${i}: the commands ${JSON.stringify(items)} answered ${JSON.stringify(leftAnswers)} on one side, ${JSON.stringify(right.results)} on the other`;
      break;
    }
    commands += items.length;
    refused += (right?.results as Array<{ ok: boolean }> | undefined)?.filter((r) => !r.ok).length ?? 0;
    const actors = left.results.at(-1).result.items as Array<{ kingdom_id?: number | null; x: number; y: number }>;
    targets = actors.filter((a) => a.kingdom_id != null).map(({ x, y }) => ({ x, y }));
    if (i % 20 === 0) {
      const got = await read.ok('recv_events', { since_seq: cursor, max: 1000 });
      cursor = got.next_cursor;
      received += got.count;
    }
    const step = { ticks: 1 + next(6) };
    const [a, b] = await Promise.all([read.ok('step', step), bare.ok('step', step)]);
    if (a.hash !== b.hash || a.tick !== b.tick) {
      parted = `step ${i} (${step.ticks} ticks to tick ${a.tick}): hash ${a.hash} on the read side, ${b.hash} (tick ${b.tick}) on the other`;
      break;
    }
    stepped++;
    ticks += a.ticks;
  }
  t.equal(parted, null, 'no step parted the worlds');
  t.equal(stepped, STEPS, `${STEPS} steps, the hash compared after each`);
  t.same(await read.ok('world_hash'), await bare.ok('world_hash'), 'world_hash agrees at the end');

  // The run did what it is about: the worlds moved, kingdoms rose and fell, and the read side
  // consumed events the other side never read.
  const world = await read.ok('get_world_state');
  events.abort();
  await stream.done;
  const fell = stream.kinds.get('kingdom_fell') ?? 0;
  t.ok(ticks >= 2 * STEPS, `${ticks} ticks run`);
  t.ok(commands >= STEPS && commands - refused >= STEPS / 2, `${commands} commands sent, ${commands - refused} accepted`);
  t.ok(world.kingdoms_ever_created >= 5 && fell >= 3, `${world.kingdoms_ever_created} kingdoms founded, ${fell} fell`);
  t.ok(received > 0, `recv_events consumed ${received} events`);
  t.ok((stream.kinds.get('actor_died') ?? 0) > 0 && (stream.kinds.get('command') ?? 0) >= 2 * STEPS, 'the stream carried the world and the commands');

  // Another seed: another world, another hash. Speed and pause are the game's settings, not the
  // world's: a new world keeps them, so they go back to the start's first.
  const settings = { commands: [{ name: 'resume' }, { name: 'set_speed', args: { speed_id: 'x1' } }, { name: 'dismiss_window' }], stop_on_error: false };
  await Promise.all([read.ok('batch', settings), bare.ok('batch', settings)]);
  await Promise.all([read.ok('generate_world', small), bare.ok('generate_world', { ...small, seed: SEED + 1 })]);
  const [fresh, other] = await Promise.all([read.ok('world_hash'), bare.ok('world_hash')]);
  t.equal(fresh.hash, aStart.hash, 'the seed again gives its world again');
  t.not(other.hash, fresh.hash, 'another seed gives another hash');

  for (const b of [read, bare]) b.child.kill('SIGTERM');
  const exits = await Promise.all([read.exited, bare.exited]);
  t.same(exits, [0, 0], 'both bridges stop cleanly');
});
