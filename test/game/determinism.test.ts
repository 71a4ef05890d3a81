// Same seed + same calls = same world (hash of every buffer and record); another seed differs; and
// reporting events (decisions §7) changes nothing, whoever listens.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import type { GameHost } from '../../src/shared/game-module.ts';
import { DEFAULT, findTile, openLand, runTicks, WATER } from './helpers.ts';

function scenario(seed: number, host?: GameHost): string[] {
  game.init({ ...DEFAULT, seed }, host);
  const hashes = [game.stateHash()];
  runTicks(game, 300);
  const s = game.snapshotWorld() as SandboxSnapshot;
  const land = openLand(s, 3);
  game.spawn('human', land.x, land.y, 8, true);
  game.spawn('wolf', land.x + 2, land.y, 3, false);
  game.invokePower('lightning', land.x, land.y, null);
  game.invokePower('fire', land.x + 1, land.y + 1, 3);
  game.invokePower('rain_toggle', 0, 0, null);
  game.paintTile(land.x - 2, land.y - 2, 'forest', 'tree_oak', 2);
  const water = findTile(s, (id) => WATER.has(id));
  game.invokePower('spawn_fish', water.x, water.y, null);
  hashes.push(game.stateHash());
  runTicks(game, 500);
  hashes.push(game.stateHash());
  return hashes;
}

t.test('two runs of the same calls give the same world, tick by tick', (t) => {
  const first = scenario(1234);
  const second = scenario(1234);
  t.same(second, first);
  t.equal(new Set(first).size, first.length, 'the world changes between checkpoints');
  t.end();
});

t.test('events change nothing: no host, a no-op host, a recording host and a throwing host give the same world', (t) => {
  const base = { drainFrame() {}, stopped: new Promise<void>(() => {}) };
  const recorded: unknown[] = [];
  let thrown = 0;
  const without = scenario(1234);
  const noop = scenario(1234, { ...base, emit() {} });
  const recording = scenario(1234, { ...base, emit: (kind, fields, kingdomIds) => void recorded.push({ kind, fields, kingdomIds }) });
  const throwing = scenario(1234, {
    ...base,
    emit() {
      thrown++;
      throw new Error('a broken host');
    },
  });
  t.same(noop, without, 'no-op host');
  t.same(recording, without, 'recording host');
  t.same(throwing, without, 'a host that throws: emission never throws into the simulation');
  t.ok(recorded.length > 100, `${recorded.length} events recorded`);
  t.equal(thrown, recorded.length, 'the throwing host was called as often');
  t.end();
});

t.test('a different seed gives a different world', (t) => {
  const a = scenario(1234);
  const b = scenario(4321);
  for (let n = 0; n < a.length; n++) t.not(b[n], a[n], `checkpoint ${n}`);
  t.end();
});

t.test('reads do not change the world', (t) => {
  game.init(DEFAULT);
  runTicks(game, 100);
  const before = game.stateHash();
  game.getWorldState();
  game.listKingdoms(true);
  game.listCities();
  game.queryActors({ alive: true, limit: 5000, offset: 0 });
  game.queryActors({ alive: false, limit: 10, offset: 0 });
  game.getTile(10, 10);
  game.kingdomOrder();
  game.listPowers();
  game.snapshotWorld();
  t.equal(game.stateHash(), before);
  t.end();
});

t.test('generateWorld is pure: it leaves the live world alone and repeats itself', (t) => {
  game.init(DEFAULT);
  const live = game.stateHash();
  const a = game.generateWorld({ zonesX: 3, zonesY: 2, seed: 99 });
  const b = game.generateWorld({ zonesX: 3, zonesY: 2, seed: 99 });
  t.equal(game.stateHash(), live);
  t.equal(game.snapshotHash(a), game.snapshotHash(b));
  t.equal(a.width, 192);
  t.equal(a.height, 128);
  t.end();
});

t.test('init with the default seed matches generateWorld with the same parameters', (t) => {
  game.init(DEFAULT);
  const generated = game.generateWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  t.equal(game.liveSnapshotHash(), game.snapshotHash(generated));
  t.end();
});
