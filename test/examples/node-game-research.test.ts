// examples/node-game in research mode, called as the game thread calls it: advance() runs ticks
// whatever the pause, stateHash() is 16 lowercase hex that two runs of the same seed and commands
// share, and restore() puts a snapshot() back so the same commands give the same hashes again.
import t from 'tap';
import * as sheepField from '../../examples/node-game/game.ts';
import type { GameHost } from '../../src/shared/game-module.ts';
import { snapshotBytesOf } from '../../src/shared/snapshot-bytes.ts';

const host: GameHost = { drainFrame() {}, stopped: new Promise<void>(() => {}), emit() {} };
const HEX16 = /^[0-9a-f]{16}$/;

/** Ticks and spawns, the hash after each. */
function script(): string[] {
  const hashes: string[] = [];
  for (let n = 0; n < 10; n++) {
    sheepField.advance(7);
    if (n % 3 === 0) sheepField.spawn('sheep', 10 + n, 12, 3, n % 2 === 0);
    hashes.push(sheepField.stateHash());
  }
  return hashes;
}

t.test('the same seed and commands give the same hashes; another seed others', (t) => {
  sheepField.init({ seed: 7, suppressStartupWindow: true }, host);
  const start = sheepField.stateHash();
  t.match(start, HEX16);
  const first = script();
  sheepField.init({ seed: 7, suppressStartupWindow: true }, host);
  t.equal(sheepField.stateHash(), start);
  t.same(script(), first);
  t.equal(new Set(first).size, first.length, 'the world moves');
  sheepField.init({ seed: 8, suppressStartupWindow: true }, host);
  t.not(sheepField.stateHash(), start);
  t.notSame(script(), first);
  t.end();
});

t.test('advance runs whatever the pause; update does not; the seed stays what it was', (t) => {
  sheepField.init({ seed: 3, suppressStartupWindow: true }, host);
  sheepField.setPaused(true);
  sheepField.advance(12);
  t.equal(sheepField.currentTick(), 12);
  sheepField.update();
  t.equal(sheepField.currentTick(), 12);
  t.equal(sheepField.getWorldState().seed, 3, 'the random state is not the seed');
  t.throws(() => sheepField.advance(-1), { code: 'BAD_ARGS' });
  t.end();
});

t.test('restore puts the snapshot back: the same hash, then the same hashes for the same commands', (t) => {
  sheepField.init({ seed: 11, suppressStartupWindow: true }, host);
  sheepField.advance(20);
  const saved = sheepField.snapshot();
  const hash = sheepField.stateHash();
  const first = script();
  sheepField.restore(saved);
  t.equal(sheepField.stateHash(), hash);
  t.same(script(), first);
  sheepField.restore(structuredClone(saved));
  t.equal(sheepField.stateHash(), hash, 'a copy from another thread works as well');
  // The example exports no snapshotBytes(): the bridge counts the typed array its snapshot holds.
  t.notOk('snapshotBytes' in sheepField);
  t.equal(snapshotBytesOf(saved), saved.sheep.byteLength);
  t.throws(() => sheepField.restore({}), { code: 'BAD_ARGS' });
  t.equal(sheepField.stateHash(), hash, 'a refused restore changes nothing');
  t.end();
});
