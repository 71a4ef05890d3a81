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
 * decisions §4: the in-memory message bus. One bus-wide seq counter; one inbox per agent that
 * keeps the newest 200 (the oldest is dropped); reading is non-destructive, by cursor.
 */
export class MessageBus {
  #seq = 0;
  readonly #inboxes = new Map<string, BusMessage[]>();
  readonly #capacity: number;

  constructor(agentIds: readonly string[], capacity: number = LIMITS.inboxSize) {
    this.#capacity = capacity;
    for (const id of agentIds) this.#inboxes.set(id, []);
  }

  /**
   * decisions §10: the agents after an agents.json reload. Inboxes of staying agents are kept, new
   * agents start empty, removed agents' inboxes go; the seq counter goes on.
   */
  setAgents(agentIds: readonly string[]): void {
    const keep = new Set(agentIds);
    for (const id of this.#inboxes.keys()) if (!keep.has(id)) this.#inboxes.delete(id);
    for (const id of agentIds) if (!this.#inboxes.has(id)) this.#inboxes.set(id, []);
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
      const inbox = this.#inboxes.get(id)!;
      inbox.push(message);
      if (inbox.length > this.#capacity) inbox.shift();
    }
    return message.seq;
  }

  /** Messages with seq > sinceSeq, oldest first, at most `max`. */
  receive(id: string, sinceSeq: number, max: number): BusMessage[] {
    const inbox = this.#inboxes.get(id) ?? [];
    const items: BusMessage[] = [];
    for (const message of inbox) {
      if (message.seq <= sinceSeq) continue;
      items.push(message);
      if (items.length === max) break;
    }
    return items;
  }
}
