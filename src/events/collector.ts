// The game-thread half of the event layer: what stands behind `host.emit` (decisions §7). Events
// are stamped with their tick and kept in a buffer. The batch leaves with the next answer the game
// thread sends (so an answer never reaches a client before the events its command emitted), at the
// end of the frame, or when the drainer flushes it during a long step: no message per event, none
// for an empty frame. The main loop numbers them.
import { LIMITS } from '../limits.ts';
import type { Collector } from '../shared/frame.ts';
import type { EventBatch, RawEvent } from '../shared/protocol.ts';

export function createCollector(options: {
  /** Kinds the game may emit: the bridge's frame kinds plus the game's declared ones. */
  kinds: ReadonlySet<string>;
  currentTick(): number;
  send(batch: EventBatch): void;
  warn(message: string, detail?: Record<string, unknown>): void;
  /** Per-frame bound (default LIMITS.eventsPerFrame). */
  maxPerFrame?: number;
}): Collector {
  const { kinds, send, warn } = options;
  const maxPerFrame = options.maxPerFrame ?? LIMITS.eventsPerFrame;
  const warned = new Set<string>();
  let events: RawEvent[] = [];
  /** Events kept this frame, in every batch taken so far too: the bound is a frame's. */
  let kept = 0;
  let dropped = 0;
  let droppedWarned = false;

  function emit(kind: string, fields?: Record<string, unknown>, kingdomIds?: readonly number[]): void {
    if (!kinds.has(kind)) {
      // decisions §7: a game declares its kinds; an undeclared one is dropped, said once per kind.
      if (!warned.has(kind) && warned.size < 1000) {
        warned.add(kind);
        warn(`event kind '${String(kind).slice(0, 64)}' is not declared in the game's eventKinds; its events are dropped`, { kind: String(kind).slice(0, 64) });
      }
      return;
    }
    if (kept >= maxPerFrame) {
      dropped++;
      return;
    }
    const ids = kingdomIds?.filter((id) => Number.isInteger(id)) ?? EMPTY;
    kept++;
    events.push({ kind, tick: options.currentTick() | 0, fields: fields !== null && typeof fields === 'object' ? fields : undefined, kingdomIds: ids });
  }

  function take(): EventBatch | null {
    if (events.length === 0 && dropped === 0) return null;
    const batch: EventBatch = { type: 'events', events, at: Date.now(), dropped };
    if (dropped > 0 && !droppedWarned) {
      droppedWarned = true;
      warn(`a frame emitted more than ${maxPerFrame} events; the rest were dropped (counted, not reported again)`, { dropped });
    }
    events = [];
    dropped = 0;
    return batch;
  }

  function flush(): void {
    kept = 0;
    const batch = take();
    if (batch !== null) sendSafely(batch);
  }

  function sendSafely(batch: EventBatch): void {
    try {
      send(batch);
    } catch {
      // A field that cannot be cloned (a function, a class instance with private state) sinks the
      // whole message: send the events that can be cloned, drop the others with one warning.
      sendCloneable(batch);
    }
  }

  function sendCloneable(batch: EventBatch): void {
    const kept: RawEvent[] = [];
    for (const event of batch.events) {
      try {
        structuredClone(event.fields);
        kept.push(event);
      } catch {
        batch.dropped++;
        if (!warned.has(`\0clone:${event.kind}`)) {
          warned.add(`\0clone:${event.kind}`);
          warn(`an event of kind '${event.kind}' carried fields that cannot be copied to the main loop (plain JSON data only); dropped`, { kind: event.kind });
        }
      }
    }
    batch.events = kept;
    try {
      send(batch);
    } catch (err) {
      warn(`an event batch could not be sent: ${(err as Error).message}`);
    }
  }

  return { emit, flush, endTick: () => void (kept = 0), take, send: sendSafely, held: () => events.length };
}

const EMPTY: number[] = [];
