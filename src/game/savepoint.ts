// In-memory savepoints: a copy of everything that decides the future, as the state table (state.ts)
// lists it: the world as a snapshot, the counts the world keeps exactly as they stood, and the
// interface state a savepoint keeps (pause, window, speed, pending milliseconds); and putting it
// back. Restoring writes into the live world's own arrays when the sizes allow, so a rewind costs a
// few memory copies and no allocation of a whole world.
import { COUNTED_FIELDS, INTERFACE_FIELDS, SAVED_FIELDS, setValue, valueOf, type CountedKey, type KeptUiKey } from './state.ts';
import type { SaveData } from './state-kinds.ts';
import { fromSnapshot, loadState, toSnapshot, type SandboxSnapshot } from './snapshot.ts';
import type { Ui } from './ui.ts';
import type { World } from './world.ts';

const SAVEPOINT_FORMAT = 'gcb-sandbox-savepoint';

/** The sandbox's savepoint value (what its snapshot() returns, opaque to the bridge, which keeps it in a `Savepoint`). */
export interface WorldCopy {
  format: typeof SAVEPOINT_FORMAT;
  world: SandboxSnapshot;
  /**
   * Counts kept up to date as the world runs. A snapshot loaded from a file recounts them; a
   * savepoint keeps them as they were, so a rewound world is the same world, not a recount of it.
   */
  counts: Record<CountedKey, number>;
  ui: { [K in KeptUiKey]: Ui[K] };
}

export class SavepointError extends Error {}

// Flat lists for the walks of every take and rewind (see snapshot.ts).
const COUNTS = COUNTED_FIELDS.map(([key]) => key);
const KEPT = INTERFACE_FIELDS.map(([key, field]) => ({ key, put: field.put, refuse: field.refuse }));
const SIZES = SAVED_FIELDS.flatMap(([, field]) => (field.bytes ? [field.bytes] : []));

export function takeSavepoint(w: World, ui: Ui): WorldCopy {
  const counts = {} as Record<string, unknown>;
  for (let i = 0; i < COUNTS.length; i++) counts[COUNTS[i]!] = valueOf(w, COUNTS[i]!);
  const kept = {} as Record<string, unknown>;
  for (let i = 0; i < KEPT.length; i++) kept[KEPT[i]!.key] = valueOf(ui, KEPT[i]!.key);
  return { format: SAVEPOINT_FORMAT, world: toSnapshot(w), counts: counts as WorldCopy['counts'], ui: kept as WorldCopy['ui'] };
}

/** Throws SavepointError unless `v` is what takeSavepoint returns (the world inside was checked when taken). */
export function checkSavepoint(v: unknown): WorldCopy {
  const sp = v as Partial<WorldCopy> | null;
  if (typeof sp !== 'object' || sp === null || sp.format !== SAVEPOINT_FORMAT)
    throw new SavepointError('not a savepoint of this game (take one with snapshot())');
  if (typeof sp.world !== 'object' || typeof sp.counts !== 'object' || typeof sp.ui !== 'object') throw new SavepointError('the savepoint is incomplete');
  for (let i = 0; i < KEPT.length; i++) {
    const { key, refuse } = KEPT[i]!;
    const refused = refuse?.(sp.ui[key]);
    if (refused) throw new SavepointError(refused);
  }
  return sp as WorldCopy;
}

/**
 * Puts the savepoint's world and interface state back: the world into `w` when it has the same size
 * (returns `w`), else into a new world (returned). Either way the result equals the world the
 * savepoint was taken of, in every field of the state table; the savepoint stays usable for another
 * restore. Refuses (SavepointError) before it writes anything.
 */
export function restoreWorld(w: World, ui: Ui, sp: WorldCopy): World {
  const s = sp.world;
  let world = w;
  // The tile layers are reused at the same size only.
  if (s.width !== w.width || s.height !== w.height) {
    world = fromSnapshot(s);
    world.events = w.events;
  } else if (!loadState(w, s)) {
    throw new SavepointError('the savepoint holds more actors than a world may');
  }
  for (let i = 0; i < COUNTS.length; i++) setValue(world, COUNTS[i]!, sp.counts[COUNTS[i]!]);
  for (let i = 0; i < KEPT.length; i++) {
    const { key, put } = KEPT[i]!;
    if (put) put(ui, sp.ui[key]);
    else setValue(ui, key, sp.ui[key]);
  }
  return world;
}

/** The memory a savepoint holds: its typed arrays exactly, its kingdom and city records estimated. */
export function savepointBytes(sp: WorldCopy): number {
  const s = sp.world as unknown as SaveData;
  let bytes = 0;
  for (let i = 0; i < SIZES.length; i++) bytes += SIZES[i]!(s);
  return bytes;
}
