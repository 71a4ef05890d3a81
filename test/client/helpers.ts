// Shared by the client's event-stream tests.
import type { BridgeEvent } from '../../src/client/events.ts';

/** The next `count` events of a stream (fewer when it ends first). */
export async function take(stream: AsyncIterator<BridgeEvent>, count: number): Promise<BridgeEvent[]> {
  const out: BridgeEvent[] = [];
  while (out.length < count) {
    const next = await stream.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/** Resolves once `predicate` holds (polled every 10 ms); rejects after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
