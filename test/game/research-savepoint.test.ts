// The sandbox's research exports one by one: advance() runs ticks whatever the pause, the window and
// the speed, and closes each tick's event frame; snapshot()/restore() put back the whole state (hash,
// tick, random state, interface) as often as asked; stateHash() is 16 lowercase hex over exactly
// the state that decides the future, the same in another process.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import type { GameHost } from '../../src/shared/game-module.ts';
import { snapshotBytesOf } from '../../src/shared/snapshot-bytes.ts';
import { nodeArgs, REPO_ROOT } from '../helpers/paths.ts';
import { DEFAULT, openLand, SMALL } from './helpers.ts';

/**
 * stateHash() of the default world (seed 1234, 256×256) at tick 0 and after advance(100). A change
 * here means the canonical form, generation or the simulation changed: if that was meant, put the
 * new values here (and bump CANONICAL_FORM in src/game/state-hash.ts when the form itself changed),
 * knowing that recorded episodes of the old version will not replay.
 */
const GOLDEN = { start: 'e37180a0d94d4703', after: 'b77059c3b042fc8f' };
const HEX16 = /^[0-9a-f]{16}$/;

const snap = () => game.snapshotWorld() as SandboxSnapshot;

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

/** 100 ticks of commands that draw on the random state, change kingdoms, laws, tiles, speed and pause; the hash after each. */
function script(): string[] {
  const hashes: string[] = [];
  const land = openLand(snap(), 3);
  const capital = snap().cities.find((c) => c.alive)!;
  const steps: Array<() => unknown> = [
    () => game.spawn('human', land.x, land.y, 12, true),
    () => game.advance(10),
    () => game.spawn('wolf', land.x + 2, land.y, 4, false),
    () => game.invokePower('lightning', land.x, land.y, null),
    () => game.setSpeed('x10'),
    () => game.advance(20),
    () => game.invokePower('atomic_bomb', capital.x, capital.y, null),
    () => game.invokePower('world_peace', 0, 0, null),
    () => game.paintTile(land.x - 2, land.y - 2, 'forest', 'tree_oak', 2),
    () => game.setPaused(true),
    () => game.advance(30),
    () => game.invokePower('fire', land.x + 1, land.y + 1, 3),
    () => game.spawn('elf', land.x, land.y + 1, 6, true),
    () => game.advance(40),
  ];
  for (const step of steps) {
    step();
    hashes.push(game.stateHash());
  }
  return hashes;
}

t.test('restore puts back the hash, the tick, the random state and the interface; the same commands then give the same hashes', (t) => {
  game.init(DEFAULT);
  game.advance(30);
  game.setSpeed('x3');
  const saved = game.snapshot();
  const hash = game.stateHash();
  const first = script();
  t.equal(game.currentTick(), 130, '100 ticks ran');
  t.not(game.stateHash(), hash);
  for (const round of ['again', 'and again: a savepoint can be restored more than once']) {
    game.restore(saved);
    t.equal(game.stateHash(), hash, 'the hash of the savepoint');
    t.equal(game.currentTick(), 30, 'its tick');
    t.equal(game.currentSpeed(), 'x3', 'its speed');
    t.equal(game.getUiState().config_paused, false, 'its pause');
    t.same(script(), first, `the same hashes ${round}`);
  }
  // Into a world of another size (a new world is built), and from a copy that crossed threads.
  game.init(SMALL);
  game.restore(structuredClone(saved));
  t.equal(game.stateHash(), hash, 'restored into a 128×128 world');
  t.same(script(), first, 'and it runs on the same');
  t.end();
});

t.test('restore refuses what is not a savepoint of this game, and changes nothing', (t) => {
  game.init(SMALL);
  game.advance(5);
  const hash = game.stateHash();
  const saved = game.snapshot() as { ui: object };
  const bad: Array<[string, unknown]> = [
    ['null', null],
    ['a number', 42],
    ['an empty object', {}],
    ['a world snapshot (snapshotWorld)', game.snapshotWorld()],
    ['another format', { ...saved, format: 'other' }],
    ['an unknown speed', { ...saved, ui: { ...saved.ui, speedId: 'x999' } }],
  ];
  for (const [what, value] of bad) {
    t.equal(
      refusal(() => game.restore(value)),
      'BAD_ARGS',
      `restore: ${what}`,
    );
    t.equal(
      refusal(() => game.snapshotBytes(value)),
      'BAD_ARGS',
      `snapshotBytes: ${what}`,
    );
  }
  t.equal(game.stateHash(), hash);
  t.end();
});

t.test('snapshotBytes: the typed arrays exactly, plus an estimate of the records', (t) => {
  game.init(DEFAULT);
  game.advance(50);
  const saved = game.snapshot();
  const bytes = game.snapshotBytes(saved);
  const arrays = snapshotBytesOf(saved); // the bridge's fallback: typed arrays only
  const tiles = 256 * 256 * 6; // type, top, elevation, fire (1 byte each) and owner (2)
  t.ok(arrays > tiles, `${arrays} bytes of typed arrays, more than the ${tiles} of the tiles`);
  t.ok(bytes > arrays && bytes - arrays < 64 * 1024, `${bytes - arrays} bytes of records on top`);
  t.end();
});

t.test('advance runs its ticks whatever the pause, the window and the speed', (t) => {
  game.init({ ...DEFAULT, suppressStartupWindow: false });
  game.setPaused(true);
  game.setSpeed('slow_mo');
  t.equal(game.getUiState().current_window, 'welcome');
  game.advance(25);
  t.equal(game.currentTick(), 25);
  game.update(1000);
  t.equal(game.currentTick(), 25, 'update() still respects the pause');
  t.end();
});

t.test('a tick is a tick: speed, pause and window change nothing a tick does', (t) => {
  game.init(DEFAULT);
  game.advance(100);
  const world = game.liveSnapshotHash();
  const hash = game.stateHash();
  game.init({ ...DEFAULT, suppressStartupWindow: false });
  game.setSpeed('x40');
  game.setPaused(true);
  game.advance(100);
  t.equal(game.liveSnapshotHash(), world, 'the same world');
  t.not(game.stateHash(), hash, 'the interface is part of the state hash');
  game.setSpeed('x1');
  game.setPaused(false);
  game.dismissWindow();
  t.equal(game.stateHash(), hash, 'and nothing else differs');
  t.end();
});

t.test('advance refuses a count that is not a whole number of 0 or more, and changes nothing', (t) => {
  game.init(SMALL);
  const hash = game.stateHash();
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
    t.equal(
      refusal(() => game.advance(bad)),
      'BAD_ARGS',
      String(bad),
    );
  game.advance(0);
  t.equal(game.stateHash(), hash);
  t.end();
});

t.test('advance(1) is a frame: the summaries of the frame before and of its own tick are out when it returns', (t) => {
  const kinds: string[] = [];
  const died: number[] = [];
  const host: GameHost = {
    drainFrame() {},
    stopped: new Promise<void>(() => {}),
    emit(kind, fields) {
      kinds.push(kind);
      if (kind === 'population_changed') died.push(fields!.died as number);
    },
  };
  game.init(SMALL, host);
  const land = openLand(snap(), 3);
  for (let n = 0; n < 2; n++) game.spawn('sheep', land.x, land.y, 5000, true);
  // A bomb: more than 256 deaths in the frame of the command; the rest wait for the frame's end.
  const before = game.getWorldState().population_alive;
  game.invokePower('atomic_bomb', land.x, land.y, null);
  const dead = before - game.getWorldState().population_alive;
  t.equal(kinds.filter((k) => k === 'actor_died').length, 256);
  t.notOk(kinds.includes('population_changed'));
  kinds.length = 0;
  died.length = 0;
  game.advance(1);
  t.equal(kinds[0], 'population_changed', 'the frame before the tick is closed first');
  t.ok(died.reduce((a, b) => a + b, 0) >= dead - 256, 'with every death of the bomb counted');
  // Lava under the crowd: a sixteenth of them think, and die, in each tick, more than 256 at a time.
  game.paintTile(land.x, land.y, 'lava', null, 50);
  kinds.length = 0;
  game.advance(1);
  t.equal(kinds.filter((k) => k === 'actor_died').length, 256, 'a tick with more than 256 deaths');
  t.equal(kinds.at(-1), 'population_changed', 'its summaries come before advance returns');
  kinds.length = 0;
  game.advance(0);
  t.same(kinds, [], 'nothing was left for later');
  t.end();
});

t.test('stateHash: 16 lowercase hex over the state that decides the future, and nothing else', (t) => {
  game.init({ ...DEFAULT, suppressStartupWindow: false });
  const seen = new Set<string>();
  const changes: Array<[string, () => unknown]> = [
    ['a tick', () => game.advance(1)],
    ['a spawn (actors, the random state)', () => game.spawn('sheep', openLand(snap(), 1).x, openLand(snap(), 1).y, 1, true)],
    ['a tile', () => game.paintTile(0, 0, 'lava', null, 0)],
    ['a law', () => game.invokePower('rain_toggle', 0, 0, null)],
    ['the speed', () => game.setSpeed('x2')],
    ['the pause', () => game.setPaused(true)],
    ['the window', () => game.dismissWindow()],
  ];
  seen.add(game.stateHash());
  for (const [what, change] of changes) {
    change();
    const hash = game.stateHash();
    t.match(hash, HEX16);
    t.notOk(seen.has(hash), `${what} changes the hash`);
    seen.add(hash);
  }
  const hash = game.stateHash();
  game.setSpeed('x1');
  game.setPaused(false);
  game.update(20); // 20 ms at x1: less than a tick, only the wall-clock leftover moves
  t.equal(game.currentTick(), 1);
  game.setSpeed('x2');
  game.setPaused(true);
  t.equal(game.stateHash(), hash, 'pending milliseconds of realtime frames are not state');
  t.end();
});

t.test('a save file round trip keeps the state hash: a loaded world is the same world', (t) => {
  game.init(DEFAULT);
  game.advance(200);
  game.invokePower('atomic_bomb', snap().cities.find((c) => c.alive)!.x, snap().cities.find((c) => c.alive)!.y, null);
  game.advance(40);
  const hash = game.stateHash();
  game.installWorld(game.decodeSave(game.encodeSave(game.snapshotWorld(), true)));
  t.equal(game.stateHash(), hash);
  t.end();
});

t.test('the golden hashes of the default world, here and in another process', async (t) => {
  game.init(DEFAULT);
  const start = game.stateHash();
  game.advance(100);
  const after = game.stateHash();
  t.same({ start, after }, GOLDEN, 'this process');
  const { stdout } = await promisify(execFile)(process.execPath, nodeArgs('test/fixtures/state-hash-child.ts', '1234', '100'), { cwd: REPO_ROOT });
  t.same(JSON.parse(stdout), { ...GOLDEN, tick: 100 }, 'a child process');
});
