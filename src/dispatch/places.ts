// decisions §12: the place of each action or control entry the game thread starts, (tick, order):
// the order counts the entries started at that tick, from 0 again whenever the tick has changed
// (a step, a rewind). One seed and the same commands at the same places give the same world.
import type { Place } from '../shared/protocol.ts';

export interface Places {
  /** The next place at `tick`. */
  take(tick: number): Place;
  /** Gives back the place just taken (its entry was refused and changed nothing): the entry has none. */
  giveBack(): undefined;
}

export function createPlaces(): Places {
  let current = Number.NaN;
  let order = 0;
  return {
    take(tick) {
      if (tick !== current) {
        current = tick;
        order = 0;
      }
      return { tick, order: order++ };
    },
    giveBack() {
      order--;
      return undefined;
    },
  };
}
