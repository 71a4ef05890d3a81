// The memory a game's savepoint holds, for the savepoint answer: the game's own count when it
// exports snapshotBytes(), else the bytes of the typed arrays and buffers inside the snapshot.
import type { GameModule } from './game-module.ts';

/** How deep the walk goes: a snapshot is a few levels of plain records, and a cycle must not hang it. */
const MAX_DEPTH = 16;

function walk(v: unknown, depth: number, seen: Set<object>): number {
  if (typeof v !== 'object' || v === null || depth > MAX_DEPTH || seen.has(v)) return 0;
  seen.add(v);
  if (ArrayBuffer.isView(v)) return v.byteLength;
  if (v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer)) return v.byteLength;
  let bytes = 0;
  if (Array.isArray(v)) {
    for (const item of v) bytes += walk(item, depth + 1, seen);
    return bytes;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return 0;
  for (const item of Object.values(v)) bytes += walk(item, depth + 1, seen);
  return bytes;
}

/**
 * Bytes a snapshot holds: `gameCount(snapshot)` when the game exports snapshotBytes (pass it as
 * `game.snapshotBytes`), else the byteLength of every typed array, DataView and ArrayBuffer reachable
 * through plain objects and arrays (each counted once; other values count nothing).
 */
export function snapshotBytesOf(snapshot: unknown, gameCount?: GameModule['snapshotBytes']): number {
  if (gameCount) return gameCount(snapshot);
  return walk(snapshot, 0, new Set());
}
