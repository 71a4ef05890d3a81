// decisions §12: the savepoints of savepoint, rewind and savepoint_drop, held on the game thread
// (a snapshot is the game's own value and never crosses a thread). One store per game thread,
// which the drainer makes and hands every frame step (FrameEnv.savepoints), emptied by the clock's
// world-swap hook: a savepoint belongs to the world it was taken in. Ids count up from 1 in shared
// memory, so a restarted game thread (a fresh world, an empty store) never hands out an id a
// client saw before.
import { gameRejected } from '../../errors/bridge-error.ts';
import type { WorldClock } from '../../shared/frame.ts';
import { LIMITS } from '../../limits.ts';
import { kSavepointIds } from '../../shared/layout.ts';

export interface Savepoint {
  id: number;
  tick: number;
  hash: string;
  bytes: number;
  label?: string;
  /** The game's snapshot() value, opaque to the bridge. */
  snapshot: unknown;
}

export class SavepointStore {
  readonly limit: number;
  readonly #control: Int32Array;
  readonly #held = new Map<number, Savepoint>();

  constructor(limit: number, control: Int32Array) {
    this.limit = limit;
    this.#control = control;
  }

  get size(): number {
    return this.#held.size;
  }

  /** Throws GAME_REJECTED, naming the limit, when `limit` savepoints are held: check before taking a snapshot. */
  checkRoom(): void {
    if (this.#held.size < this.limit) return;
    throw gameRejected(
      `${this.limit} savepoints are held, the most [Game] max_savepoints allows; drop one with savepoint_drop first (${this.#known()})`,
      'SavepointLimit',
    );
  }

  add(savepoint: Omit<Savepoint, 'id'>): Savepoint {
    this.checkRoom();
    const held: Savepoint = { id: Atomics.add(this.#control, kSavepointIds, 1) + 1, ...savepoint };
    this.#held.set(held.id, held);
    return held;
  }

  /** The savepoint `id`; GAME_REJECTED naming the known ids when there is none. */
  get(id: number): Savepoint {
    const held = this.#held.get(id);
    if (held === undefined) throw this.#unknown(id);
    return held;
  }

  drop(id: number): void {
    if (!this.#held.delete(id)) throw this.#unknown(id);
  }

  clear(): void {
    this.#held.clear();
  }

  #unknown(id: number): Error {
    return gameRejected(`no savepoint ${id} (${this.#known()}); savepoint_drop, generate_world and load_world drop savepoints`, 'UnknownSavepoint');
  }

  #known(): string {
    return this.#held.size === 0 ? 'known savepoints: none' : `known savepoints: ${[...this.#held.keys()].join(', ')}`;
  }
}

/** The game thread's store: at most `limit` savepoints (`[Game] max_savepoints`), emptied when `clock`'s world is swapped. */
export function createSavepointStore(clock: WorldClock, control: Int32Array, limit: number = LIMITS.maxSavepointsDefault): SavepointStore {
  const store = new SavepointStore(limit, control);
  clock.onWorldSwap(() => store.clear());
  return store;
}
