// The state table (src/game/state.ts) is the one list of the world's state. Every field in it, and
// every part of one (each actor array, each array of the ring of the dead, each law, each field of a
// kingdom and of a city), changed alone in a world, must change the hash, come back through a
// savepoint, and come back through a save; a count the world keeps is counted afresh by a save,
// and the interface state is the savepoint's alone. The cases are made from the table and the
// world's own values, so a field added to the table is tested without a line here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SPEED_IDS } from '../../src/game/assets.ts';
import { decodeSave, encodeSave } from '../../src/game/save-format.ts';
import { restoreWorld, takeSavepoint } from '../../src/game/savepoint.ts';
import { fromSnapshot, toSnapshot, type SandboxSnapshot } from '../../src/game/snapshot.ts';
import { STATE, STATE_FIELDS, valueOf } from '../../src/game/state.ts';
import { hashState } from '../../src/game/state-hash.ts';
import { createUi, type Ui } from '../../src/game/ui.ts';
import { createWorld, type World } from '../../src/game/world.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

/** Not state: each named here on purpose, so a field is never left out of saves by accident. */
const RUNTIME = [
  'capacity',
  'multiplier',
  'worldLoading',
  'gridW',
  'gridH',
  'cellStart',
  'cellFill',
  'cellOf',
  'cellF32',
  'cellI32',
  'spare',
  'births',
  'events',
];
/** State a savepoint keeps but the hash does not (wall-clock leftovers of realtime frames). */
const NOT_HASHED = ['pendingMs'];
/** A size cannot change alone (the tile layers are sized by both): these swap them, on an empty world. */
const SIZES = ['width', 'height'];

// A world holding every kind of state: fires, deaths since the last compaction, a war, rain.
const BASE = decodeSave(new Uint8Array(readFileSync(join(REPO_ROOT, 'test/fixtures/sandbox-v0.5.gcbw'))));
// 128 × 192 and nothing on it: its sizes can swap and it stays a valid world.
const EMPTY = toSnapshot(createWorld(128, 192, 7));

interface State {
  w: World;
  ui: Ui;
}

type Path = Array<string | number>;
type Field = (typeof STATE)[keyof typeof STATE];

const fresh = (s: SandboxSnapshot): State => ({ w: fromSnapshot(s), ui: createUi(false) });
const hash = (s: State) => hashState(s.w, s.ui);

/** The paths to every part of a value: an object's keys, the first record of a list, else the value itself. */
function parts(v: unknown): Path[] {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return [[]];
  if (Array.isArray(v)) return v.length === 0 || typeof v[0] !== 'object' ? [[]] : parts(v[0]).map((p) => [0, ...p]);
  return Object.keys(v).flatMap((key) => parts((v as Record<string, unknown>)[key]).map((p) => [key, ...p]));
}

/** The container of a part and its key in it. */
function place(s: State, key: string, family: string, path: Path): [Record<string | number, unknown>, string | number] {
  let container = (family === 'interface' ? s.ui : s.w) as unknown as Record<string | number, unknown>;
  let at: string | number = key;
  for (const step of path) {
    container = container[at] as Record<string | number, unknown>;
    at = step;
  }
  return [container, at];
}

type NumberArray = Uint8Array | Uint16Array | Int16Array | Int32Array | Uint32Array | Float32Array;

/**
 * Changes one part of `s` in a way a valid world allows, and returns how to read it back. A list
 * whose live entries end before its array (the fire list, the free stack) is reversed; any other
 * array changes one entry (the first one set, among those a save holds); a length shortens its list;
 * a record's number moves by one away from 0 (its references start at 1); other numbers grow by one.
 */
function change(s: State, key: string, field: Field, path: Path): (s: State) => unknown {
  const [container, at] = place(s, key, field.family, path);
  const read = (x: State) => {
    const [c, a] = place(x, key, field.family, path);
    return c[a];
  };
  const v = container[at];
  if (ArrayBuffer.isView(v)) {
    const array = v as NumberArray;
    const saved = field.family === 'saved' && field.at ? savedPart(toSnapshot(s.w), field.at, path) : array;
    const live = saved.length;
    if (path.length === 0 && live < array.length) {
      array.subarray(0, live).reverse();
      return (x) => Array.from((read(x) as NumberArray).subarray(0, live));
    }
    let k = array.subarray(0, live).findIndex((n) => n !== 0);
    if (k < 0) k = 0;
    array[k] = array[k]! >= 1 ? array[k]! - 1 : array[k]! + 1;
    return (x) => (read(x) as NumberArray)[k];
  }
  if (typeof v === 'number') {
    const inRecord = path.some((step) => typeof step === 'number');
    if (field.family === 'saved' && !field.at) container[at] = v - 1;
    else if (inRecord) container[at] = v > 1 ? v - 1 : v + 1;
    else container[at] = v + 1;
  } else if (typeof v === 'boolean') container[at] = !v;
  else if (key === 'speedId') container[at] = SPEED_IDS.find((id) => id !== v);
  else if (typeof v === 'string') container[at] = `${v}!`;
  else if (v === null) container[at] = 'welcome';
  else if (Array.isArray(v)) container[at] = v.length > 0 ? v.slice(0, -1) : [1];
  else throw new Error(`no way to change ${key}.${path.join('.')} (${typeof v}): add one here`);
  return (x) => structuredClone(read(x));
}

function savedPart(snapshot: SandboxSnapshot, at: string, path: Path): NumberArray {
  let v: unknown = snapshot;
  for (const step of [...at.split('.'), ...path]) v = (v as Record<string | number, unknown>)[step];
  return v as NumberArray;
}

t.test('the table lists every field of the world and of the interface, and only those', (t) => {
  const keys = [...Object.keys(createWorld(128, 128, 1)), ...Object.keys(createUi(true))].sort();
  t.same(Object.keys(STATE).sort(), keys, 'a field missing from the table (or one the world no longer has) fails here, and in the compiler');
  t.same(
    STATE_FIELDS.filter(([, f]) => f.family === 'runtime').map(([key]) => key),
    RUNTIME,
    'the fields that are not state are these',
  );
  t.same(
    STATE_FIELDS.filter(([, f]) => f.family === 'interface' && f.head === null).map(([key]) => key),
    NOT_HASHED,
    'the state the hash leaves out is this',
  );
  t.end();
});

t.test('every part of every field, changed alone: the hash changes, a savepoint and a save bring it back', (t) => {
  let cases = 0;
  for (const [key, field] of STATE_FIELDS) {
    if (field.family === 'runtime') continue;
    const start = SIZES.includes(key) ? EMPTY : BASE;
    const base = fresh(start);
    const holder = field.family === 'interface' ? base.ui : base.w;
    for (const path of parts(valueOf(holder, key))) {
      const name = [key, ...path].join('.');
      cases++;
      const changed = fresh(start);
      let read: (s: State) => unknown;
      if (SIZES.includes(key)) {
        [changed.w.width, changed.w.height] = [changed.w.height, changed.w.width];
        read = (s) => valueOf(s.w, key);
      } else {
        read = change(changed, key, field, path);
      }
      const want = read(changed);
      t.not(JSON.stringify(want), JSON.stringify(read(base)), `${name}: the change changes it`);

      if (field.family === 'interface' && field.head === null) t.equal(hash(changed), hash(base), `${name}: the hash leaves it out`);
      else t.not(hash(changed), hash(base), `${name}: the hash changes`);

      // A savepoint: taken, the world changed again, put back into the unchanged world.
      const sp = takeSavepoint(changed.w, changed.ui);
      const fullHash = hash(changed);
      if (!SIZES.includes(key)) change(changed, key, field, path);
      const into = fresh(start);
      const restored = { w: restoreWorld(into.w, into.ui, sp), ui: into.ui };
      t.same(read(restored), want, `${name}: a savepoint brings it back`);
      t.equal(hash(restored), fullHash, `${name}: and the whole state with it`);

      // A save: what it holds comes back; a count is counted afresh; the interface is not in it.
      if (field.family === 'interface') {
        t.equal(hashState(changed.w, null), hashState(base.w, null), `${name}: a save holds the world alone`);
        continue;
      }
      const forSave = fresh(start);
      if (SIZES.includes(key)) [forSave.w.width, forSave.w.height] = [forSave.w.height, forSave.w.width];
      else change(forSave, key, field, path);
      if (path.at(-1) === 'id') {
        t.throws(
          () => decodeSave(encodeSave(toSnapshot(forSave.w), true)),
          { message: /\.id must be/ },
          `${name}: is its record's place, so a save refuses it changed`,
        );
        continue;
      }
      const loaded: State = { w: fromSnapshot(decodeSave(encodeSave(toSnapshot(forSave.w), true))), ui: createUi(false) };
      if (field.family === 'counted') t.equal(read(loaded), field.recount(forSave.w), `${name}: a save counts it afresh`);
      else t.same(read(loaded), want, `${name}: a save brings it back`);
    }
  }
  t.ok(cases > 80, `${cases} parts changed`);
  t.end();
});
