// The bytes a savepoint holds: the game's own count when it has snapshotBytes(), else every typed
// array, DataView and buffer reachable through plain objects and arrays, each counted once.
import t from 'tap';
import { snapshotBytesOf } from '../../src/shared/snapshot-bytes.ts';

t.test('the game counts its own snapshot when it can', (t) => {
  t.equal(
    snapshotBytesOf({ tiles: new Uint8Array(10) }, () => 1234),
    1234,
  );
  t.end();
});

t.test('otherwise the typed arrays and buffers inside plain objects and arrays', (t) => {
  const shared = new Int32Array(4); // 16 bytes, reachable twice
  const snapshot = {
    tick: 12,
    name: 'a world of words',
    tiles: new Uint8Array(100),
    layers: [new Uint16Array(10), new Float64Array(2), { deep: shared }],
    again: shared,
    raw: new ArrayBuffer(7),
    view: new DataView(new ArrayBuffer(5)),
  };
  t.equal(snapshotBytesOf(snapshot), 100 + 20 + 16 + 16 + 7 + 5);
  t.end();
});

t.test('what is not plain data counts nothing, and a cycle ends', (t) => {
  class Opaque {
    inside = new Uint8Array(1000);
  }
  const cyclic: Record<string, unknown> = { bytes: new Uint8Array(3) };
  cyclic.self = cyclic;
  t.equal(snapshotBytesOf({ opaque: new Opaque(), map: new Map([[1, new Uint8Array(9)]]) }), 0);
  t.equal(snapshotBytesOf(cyclic), 3);
  for (const v of [undefined, null, 5, 'text']) t.equal(snapshotBytesOf(v), 0, String(v));
  t.end();
});
