// The main-loop side of a drainer's port for the dispatch unit tests: actions queued as GameQueue
// queues them (the entry's state word, the queued count, the message), and the replies read back.
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { CallerContext } from '../../src/shared/caller.ts';
import { ENTRY_QUEUED, kQueued, type SharedState } from '../../src/shared/layout.ts';
import type { ActionMessage, ActionReply } from '../../src/shared/protocol.ts';

export type DoneReply = Extract<ActionReply, { kind: 'done' }>;

/** `port` is the main loop's end; ids start at `firstId`, cells at 0. */
export function drainerPort(port: MessagePort, shared: SharedState, caller: CallerContext, firstId = 0) {
  let cell = 0;
  const queue = (command: string, phase = 'run'): void => {
    const message: ActionMessage = {
      cell,
      id: firstId + cell,
      command,
      phase,
      input: {},
      caller,
      enqueuedAt: performance.timeOrigin + performance.now(),
      items: 1,
    };
    Atomics.store(shared.entries, cell++, ENTRY_QUEUED);
    Atomics.add(shared.control, kQueued, 1);
    port.postMessage(message);
  };
  const replies = (): DoneReply[] => {
    const out: DoneReply[] = [];
    for (let r = receiveMessageOnPort(port); r; r = receiveMessageOnPort(port)) out.push(r.message as DoneReply);
    return out;
  };
  return { queue, replies };
}
