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
