// decisions §7: when a tick a command ran (step) sends its events. Not at every tick: a step of N
// ticks would post N batches to the main loop ahead of its answer. They leave with the answer, or
// sooner once the command has stepped LIMITS.stepEventsBatchMs, or once a frame's bound of events
// is held, so a long step's events still reach streams as it runs, and a batch stays bounded. Each
// event keeps the tick it was emitted at.
import { LIMITS } from '../limits.ts';
import type { Collector } from '../shared/frame.ts';

export interface StepEvents {
  /** A frame step starts: its stepping time counts from now. */
  commandStarted(): void;
  /** A tick the command ran is closed: its events wait, or leave now if it is time. */
  tickClosed(): void;
}

export function createStepEvents(events: Collector | undefined, now: () => number): StepEvents {
  let since = now();
  return {
    commandStarted() {
      since = now();
    },
    tickClosed() {
      if (events === undefined) return;
      const at = now();
      if (at - since < LIMITS.stepEventsBatchMs && events.held() < LIMITS.eventsPerFrame) return events.endTick();
      since = at;
      events.flush();
    },
  };
}
