// A world as plain data (typed arrays + small records) and back. A snapshot is safe to post between
// threads and is the only thing saves, screenshots and world swaps see. It holds every saved field of
// the state table (state.ts), so a world rebuilt from it runs on exactly like the original; the
// counts the world keeps as it runs are counted afresh, and the runtime grid is rebuilt.
import { COUNTED_FIELDS, SAVED_FIELDS, setValue, valueOf, type SavedState } from './state.ts';
import { fail, isObject, SnapshotError, writer, type SaveData } from './state-kinds.ts';
import { createWorld, type World } from './world.ts';

export { SnapshotError };

export const SNAPSHOT_FORMAT = 'gcb-sandbox-world';
export const SNAPSHOT_VERSION = 1;

type Plain<T> = { [K in keyof T]: T[K] };
export type SandboxSnapshot = Plain<{ format: typeof SNAPSHOT_FORMAT; version: number } & SavedState>;

// A savepoint runs these walks on every take and rewind: flat lists and indexed loops, so code that
// runs a few times only (not yet optimised) spends little on the walk itself.
const SAVES = SAVED_FIELDS.flatMap(([key, field]) =>
  field.at !== undefined && field.save ? [{ key, save: field.save, put: writer(field.at), top: field.at.split('.')[0]! }] : [],
);
const RESERVES = SAVED_FIELDS.flatMap(([, field]) => (field.reserve ? [field.reserve] : []));
const LOADS = SAVED_FIELDS.map(([key, field]) => ({ key, load: field.load }));
// Every top-level key of a snapshot, in place from the start (a group undefined, so that each
// snapshot makes its own): a copy of this keeps fast properties, where an object given its keys one
// by one through the walk ends up a dictionary.
const SHAPE: Record<string, unknown> = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION };
for (const { top } of SAVES) SHAPE[top] = undefined;

/** A deep copy of the live world's state. */
export function toSnapshot(w: World): SandboxSnapshot {
  const s: Record<string, unknown> = { ...SHAPE };
  for (let i = 0; i < SAVES.length; i++) {
    const { key, save, put } = SAVES[i]!;
    put(s, save(valueOf(w, key), w));
  }
  return s as SandboxSnapshot;
}

/**
 * Makes room in `w` for the snapshot's fields, then writes every one of them (copies: the snapshot
 * stays usable). False, with nothing written, when no world may hold it.
 */
export function loadState(w: World, s: SandboxSnapshot): boolean {
  const data = s as unknown as SaveData;
  for (let i = 0; i < RESERVES.length; i++) if (!RESERVES[i]!(data, w)) return false;
  for (let i = 0; i < LOADS.length; i++) {
    const { key, load } = LOADS[i]!;
    const old = valueOf(w, key);
    const next = load(data, old, w);
    if (next !== old) setValue(w, key, next);
  }
  return true;
}

/**
 * A live world from a snapshot (copied: the snapshot stays usable). Checks its shape first; the
 * per-tile and per-actor values were checked where the snapshot was made or decoded (pool threads),
 * so the game thread's frame is not spent on them again unless `deep`.
 */
export function fromSnapshot(input: unknown, deep = false): World {
  const s = validateSnapshot(input, deep);
  const w = createWorld(s.width, s.height, s.seed);
  if (!loadState(w, s)) fail('the snapshot holds more actors than a world may');
  for (const [key, field] of COUNTED_FIELDS) setValue(w, key, field.recount(w));
  return w;
}

/**
 * Checks that `v` is a whole, consistent sandbox snapshot; throws SnapshotError naming the first
 * problem. `deep` also checks every tile and actor value (what a file from outside needs).
 */
export function validateSnapshot(v: unknown, deep = true): SandboxSnapshot {
  if (!isObject(v)) fail('snapshot must be an object');
  if (v.format !== SNAPSHOT_FORMAT) fail(`snapshot format must be '${SNAPSHOT_FORMAT}'`);
  if (v.version !== SNAPSHOT_VERSION) fail(`snapshot version ${String(v.version)} is not supported (expected ${SNAPSHOT_VERSION})`);
  for (const [, field] of SAVED_FIELDS) field.check?.(v);
  if (deep) for (const [, field] of SAVED_FIELDS) field.checkValues?.(v);
  return v as unknown as SandboxSnapshot;
}
