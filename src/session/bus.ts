import { LIMITS } from '../limits.ts';

export interface BusMessage {
  seq: number;
  from: string;
  to: string;
  kind: string;
  content: string;
  sent_utc: string;
}

/**
 * One agent's inbox, in seq order. decisions §11: when it is over capacity it drops the oldest
 * message of the sender holding the most, so a flood evicts its own messages first. Ties: the
 * sender whose oldest message is the oldest, i.e. the first message in the inbox from any of the
 * tied senders goes. The senders are counted on each eviction, O(inbox size), so no count is kept
 * in step with the messages.
 */
class Inbox {
  readonly messages: BusMessage[] = [];

  push(message: BusMessage, capacity: number): void {
    this.messages.push(message);
    if (this.messages.length > capacity) this.#evict();
  }

  #evict(): void {
    const held = new Map<string, number>();
    let most = 0;
    for (const { from } of this.messages) {
      const count = (held.get(from) ?? 0) + 1;
      held.set(from, count);
      most = Math.max(most, count);
    }
    this.messages.splice(
      this.messages.findIndex((m) => held.get(m.from) === most),
      1,
    );
  }
}

/**
 * decisions §4: the in-memory message bus. One bus-wide seq counter; one inbox per agent that
 * keeps at most 200 messages (decisions §11: over that, the biggest sender's oldest goes); reading
 * is non-destructive, by cursor.
 */
export class MessageBus {
  #seq = 0;
  readonly #inboxes = new Map<string, Inbox>();
  readonly #capacity: number;

  constructor(agentIds: readonly string[], capacity: number = LIMITS.inboxSize) {
    this.#capacity = capacity;
    for (const id of agentIds) this.#inboxes.set(id, new Inbox());
  }

  /**
   * decisions §10: the agents after an agents.json reload. Inboxes of staying agents are kept, new
   * agents start empty, removed agents' inboxes go; the seq counter goes on.
   */
  setAgents(agentIds: readonly string[]): void {
    const keep = new Set(agentIds);
    for (const id of this.#inboxes.keys()) if (!keep.has(id)) this.#inboxes.delete(id);
    for (const id of agentIds) if (!this.#inboxes.has(id)) this.#inboxes.set(id, new Inbox());
  }

  get knownIds(): string[] {
    return [...this.#inboxes.keys()];
  }

  has(id: string): boolean {
    return this.#inboxes.has(id);
  }

  /** Delivers one message (one seq) to each recipient; returns the seq. */
  send(from: string, recipients: readonly string[], to: string, kind: string, content: string): number {
    const message: BusMessage = { seq: ++this.#seq, from, to, kind, content, sent_utc: new Date().toISOString() };
    for (const id of recipients) {
      this.#inboxes.get(id)!.push(message, this.#capacity);
    }
    return message.seq;
  }

  /** Messages with seq > sinceSeq, oldest first, at most `max`. */
  receive(id: string, sinceSeq: number, max: number): BusMessage[] {
    const inbox = this.#inboxes.get(id)?.messages ?? [];
    const items: BusMessage[] = [];
    for (const message of inbox) {
      if (message.seq <= sinceSeq) continue;
      items.push(message);
      if (items.length === max) break;
    }
    return items;
  }
}
