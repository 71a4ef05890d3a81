// renderSnapshot: right size, scaled to fit, and a picture (not one flat colour).
import t from 'tap';
import * as game from '../../src/game/index.ts';
import { outputSize } from '../../src/game/render.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';

const snapshot = game.generateWorld({ zonesX: 4, zonesY: 2, seed: 1234 }) as SandboxSnapshot;

function distinctColours(rgba: Uint8Array): number {
  const seen = new Set<number>();
  for (let p = 0; p < rgba.length; p += 4) seen.add((rgba[p]! << 16) | (rgba[p + 1]! << 8) | rgba[p + 2]!);
  return seen.size;
}

t.test('full size: one pixel a tile', (t) => {
  const img = game.renderSnapshot(snapshot, 0);
  t.equal(img.width, 256);
  t.equal(img.height, 128);
  t.equal(img.rgba.length, 256 * 128 * 4);
  t.ok(distinctColours(img.rgba) > 50, 'many colours');
  for (let p = 3; p < img.rgba.length; p += 4) if (img.rgba[p] !== 255) t.fail('opaque');
  t.end();
});

t.test('a maxDimension larger than the map does not upscale', (t) => {
  const img = game.renderSnapshot(snapshot, 1280);
  t.same([img.width, img.height], [256, 128]);
  t.end();
});

t.test('scaled down to fit maxDimension, aspect kept', (t) => {
  for (const max of [100, 64, 7, 1]) {
    const img = game.renderSnapshot(snapshot, max);
    t.ok(Math.max(img.width, img.height) <= max, `${img.width}x${img.height} fits ${max}`);
    t.equal(img.width, Math.max(1, Math.floor((256 * max) / 256)));
    t.equal(img.height, Math.max(1, Math.floor((128 * max) / 256)));
    t.equal(img.rgba.length, img.width * img.height * 4);
  }
  t.ok(distinctColours(game.renderSnapshot(snapshot, 100).rgba) > 20);
  t.same(outputSize(1024, 1024, 1280), { width: 1024, height: 1024 });
  t.same(outputSize(1024, 512, 300), { width: 300, height: 150 });
  t.end();
});

t.test('water is blue, kingdoms draw their colour on their borders, actors are dots', (t) => {
  const img = game.renderSnapshot(snapshot, 0);
  const at = (x: number, y: number) => Array.from(img.rgba.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3));
  const [r, g, b] = at(0, 0);
  t.ok(b! > r! && b! > g!, 'the map edge is ocean');
  const city = snapshot.cities[0]!;
  const kingdom = snapshot.kingdoms[city.kingdomId - 1]!;
  const kc = [(kingdom.color >> 16) & 255, (kingdom.color >> 8) & 255, kingdom.color & 255];
  let border = false;
  for (let y = 0; y < snapshot.height && !border; y++) {
    for (let x = 0; x < snapshot.width && !border; x++) {
      const i = y * snapshot.width + x;
      if (snapshot.tiles.owner[i] === city.id && snapshot.tiles.owner[i + 1] !== city.id) {
        const px = at(x, y);
        border = px.every((v, n) => Math.abs(v - kc[n]!) < 40);
      }
    }
  }
  t.ok(border, 'a border pixel carries the kingdom colour');
  // The same world without its actors draws differently.
  const empty = { ...snapshot, actors: { ...snapshot.actors, alive: new Uint8Array(snapshot.hwm) } };
  t.not(Buffer.from(game.renderSnapshot(empty, 0).rgba).equals(Buffer.from(img.rgba)), true);
  t.end();
});

t.test('a live world renders too (snapshotWorld → renderSnapshot)', (t) => {
  game.init({ seed: 3, zonesX: 2, zonesY: 2, suppressStartupWindow: true });
  const img = game.renderSnapshot(game.snapshotWorld(), 64);
  t.same([img.width, img.height], [64, 64]);
  t.end();
});
