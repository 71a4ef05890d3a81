// Saves: round trips keep the world exactly; anything that is not a save is refused as BAD_ARGS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import * as game from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { REPO_ROOT } from '../helpers/paths.ts';
import { DEFAULT, openLand, runTicks } from './helpers.ts';

game.init(DEFAULT);
runTicks(game, 400);
const land = openLand(game.snapshotWorld() as SandboxSnapshot, 2);
game.invokePower('fire', land.x, land.y, 2);
game.invokePower('plague', land.x, land.y, 4);
game.spawn('dwarf', land.x, land.y, 5, true);

for (const compress of [true, false]) {
  t.test(`round trip (${compress ? 'gzip' : 'raw'}) gives the same world hash and the same future`, (t) => {
    const before = game.liveSnapshotHash();
    const bytes = game.encodeSave(game.snapshotWorld(), compress);
    t.ok(bytes instanceof Uint8Array);
    t.equal(String.fromCharCode(...bytes.subarray(0, 4)), 'GCBW');
    t.equal(bytes[6], compress ? 1 : 0, 'header flags say whether the body is compressed');
    const decoded = game.decodeSave(bytes);
    t.equal(game.snapshotHash(decoded), before);
    // The copy and the original go on identically.
    runTicks(game, 50);
    const original = game.liveSnapshotHash();
    game.installWorld(decoded);
    t.equal(game.liveSnapshotHash(), before);
    runTicks(game, 50);
    t.equal(game.liveSnapshotHash(), original);
    t.end();
  });
}

t.test('compression makes the save smaller', (t) => {
  const snapshot = game.snapshotWorld();
  t.ok(game.encodeSave(snapshot, true).length < game.encodeSave(snapshot, false).length / 2);
  t.end();
});

function rejects(t: Test, bytes: Uint8Array, pattern: RegExp, what: string): void {
  t.throws(() => game.decodeSave(bytes), { code: 'BAD_ARGS', message: pattern }, what);
}

t.test('bytes that are not a save are BAD_ARGS "not a save file"', (t) => {
  const good = game.encodeSave(game.snapshotWorld(), true);
  const raw = game.encodeSave(game.snapshotWorld(), false);
  rejects(t, new Uint8Array(0), /not a save file.*too short/, 'empty');
  rejects(t, new TextEncoder().encode('{"hello": "world", "this": "is json"}'), /not a save file.*magic/, 'json');
  rejects(t, gzipSync(raw), /not a save file.*magic/, 'a gzip of a save is not a save');
  rejects(t, good.subarray(0, good.length - 100), /not a save file.*damaged/, 'truncated gzip body');
  rejects(t, raw.subarray(0, raw.length - 10), /not a save file/, 'truncated raw body');
  const flipped = raw.slice();
  flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 0xff;
  rejects(t, flipped, /not a save file.*checksum/, 'one byte changed');
  const version = raw.slice();
  version[4] = 99;
  rejects(t, version, /not a save file.*version 99/, 'future version');
  const flags = raw.slice();
  flags[6] = 6;
  rejects(t, flags, /not a save file.*flags/, 'unknown flags');
  t.end();
});

t.test('a well-formed file holding an invalid world is refused', (t) => {
  const snapshot = game.snapshotWorld() as SandboxSnapshot;
  const broken = { ...snapshot, tiles: { ...snapshot.tiles, type: snapshot.tiles.type.slice(0, 10) } };
  t.throws(() => game.encodeSave(broken, false), { code: 'BAD_ARGS' }, 'encodeSave validates too');
  t.throws(() => game.installWorld({ width: 1, height: 1, seed: 1 }), { code: 'BAD_ARGS' });
  t.throws(() => game.renderSnapshot({ width: 1, height: 1, seed: 1 }, 0), { code: 'BAD_ARGS' });
  t.end();
});

t.test('setWorldLoading is cleared by installWorld', (t) => {
  game.setWorldLoading(true);
  t.equal(game.getUiState().world_loading, true);
  game.installWorld(game.generateWorld({ zonesX: 2, zonesY: 2, seed: 5 }));
  t.equal(game.getUiState().world_loading, false);
  t.equal(game.worldSize().width, 128);
  t.equal(game.getWorldState().seed, 5);
  t.end();
});

t.test('a save written by v0.5 loads as the world it was, and goes on as it would have', (t) => {
  // The 128×128 world of seed 1234 after 303 ticks (fires burning, deaths since the last compaction,
  // a war, rain), saved by v0.5. The hashes are v0.5's own: once installed in a fresh game (speed x1,
  // no window, not paused), and 50 ticks later. A change of the simulation changes the second.
  const bytes = new Uint8Array(readFileSync(join(REPO_ROOT, 'test/fixtures/sandbox-v0.5.gcbw')));
  game.init({ seed: 1, zonesX: 2, zonesY: 2, suppressStartupWindow: true });
  game.installWorld(game.decodeSave(bytes));
  const s = game.snapshotWorld() as SandboxSnapshot;
  t.ok(s.free.length > 0 && s.fireList.length > 0 && s.dead.total > 0 && s.laws.rain_toggle, 'the file holds every kind of state');
  t.ok(
    s.kingdoms.some((k) => k.wars.length > 0),
    'and a war',
  );
  t.equal(game.stateHash(), 'e30ec037ef0e80cb', 'the same world');
  // Written again, the file keeps the names v0.5 reads; the code's own names stay in memory.
  const metadata = new TextDecoder().decode(game.encodeSave(s, false));
  for (const name of ['"hwm"', '"kingSlot"', '"leaderSlot"']) t.match(metadata, name, `the file names ${name}`);
  t.notMatch(metadata, /kingIndex|leaderIndex|actorEnd/, "and none of the code's");
  t.ok('kingIndex' in s.kingdoms[0]! && 'leaderIndex' in s.cities[0]!, "a snapshot in memory has the code's names");
  game.advance(50);
  t.equal(game.stateHash(), '871c87748d3cb30a', 'the same future');
  t.end();
});
