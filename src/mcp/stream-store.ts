// What a client that reconnects with Last-Event-ID gets again (decisions §14): the SSE events of a
// credential's sessions, kept in the order they were sent and bounded in bytes per session and for
// the whole credential, the oldest going first (decisions §13: one agent's sessions never push
// out another's). Each session reads its own events only.
//
// An event id is `<stream id>_<n>`, n counting up per credential, so a replay can start after an
// id whose event is no longer kept: it sends what its stream still holds after n.
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What a kept event costs beside its JSON: its id, its stream id and the entry. */
const ENTRY_BYTES = 128;
/** Streams a session remembers (one per request answered over SSE, and the GET stream): the newest. */
const STREAMS_REMEMBERED = 256;

interface Kept {
  session: SessionStreams;
  stream: string;
  n: number;
  json: string;
  bytes: number;
}

export class StreamStore {
  readonly maxBytes: number;
  readonly sessionMaxBytes: number;
  /** Oldest first (a Map keeps insertion order), by event id. */
  readonly #kept = new Map<string, Kept>();
  #bytes = 0;
  #counter = 0;

  constructor(maxBytes: number, sessionMaxBytes: number) {
    this.maxBytes = maxBytes;
    this.sessionMaxBytes = Math.min(sessionMaxBytes, maxBytes);
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The event store of one session. */
  forSession(): SessionStreams {
    return new SessionStreams(this);
  }

  nextId(stream: string): { id: string; n: number } {
    const n = ++this.#counter;
    return { id: `${stream}_${n}`, n };
  }

  keep(id: string, entry: Kept): void {
    if (entry.bytes > this.sessionMaxBytes) return;
    // The session's own oldest first, then the credential's.
    while (entry.session.bytes + entry.bytes > this.sessionMaxBytes) this.#evict(entry.session);
    while (this.#bytes + entry.bytes > this.maxBytes) this.#evict(undefined);
    this.#kept.set(id, entry);
    this.#bytes += entry.bytes;
    entry.session.bytes += entry.bytes;
  }

  /** The kept events of `session` on `stream` after n, oldest first. */
  after(session: SessionStreams, stream: string, n: number): Array<{ id: string; json: string }> {
    const out: Array<{ id: string; json: string }> = [];
    for (const [id, kept] of this.#kept) if (kept.session === session && kept.stream === stream && kept.n > n) out.push({ id, json: kept.json });
    return out;
  }

  drop(session: SessionStreams): void {
    for (const [id, kept] of this.#kept) if (kept.session === session) this.#remove(id, kept);
  }

  #evict(session: SessionStreams | undefined): void {
    for (const [id, kept] of this.#kept) {
      if (session === undefined || kept.session === session) return this.#remove(id, kept);
    }
  }

  #remove(id: string, kept: Kept): void {
    this.#kept.delete(id);
    this.#bytes -= kept.bytes;
    kept.session.bytes -= kept.bytes;
  }
}

/** The SDK's EventStore for one session of a credential. */
export class SessionStreams implements EventStore {
  readonly #store: StreamStore;
  /** Bytes of its kept events (the store keeps it). */
  bytes = 0;
  /** Streams this session has had: an id naming another stream is refused. */
  readonly #streams = new Set<string>();

  constructor(store: StreamStore) {
    this.#store = store;
  }

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    this.#remember(stream);
    const { id, n } = this.#store.nextId(stream);
    // The priming event (an empty message) is an id and nothing to send again.
    if (Object.keys(message).length > 0) {
      const json = JSON.stringify(message);
      this.#store.keep(id, { session: this, stream, n, json, bytes: Buffer.byteLength(json) + stream.length + ENTRY_BYTES });
    }
    return id;
  }

  /** A priming event's id for a stream the SDK does not prime itself (the GET stream). */
  prime(stream: string): string {
    this.#remember(stream);
    return this.#store.nextId(stream).id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#parse(eventId)?.stream;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const parsed = this.#parse(lastEventId);
    if (parsed === undefined) throw new Error(`unknown event id: ${lastEventId.slice(0, 80)}`);
    for (const { id, json } of this.#store.after(this, parsed.stream, parsed.n)) await send(id, JSON.parse(json) as JSONRPCMessage);
    return parsed.stream;
  }

  /** Forgets every kept event of the session (it closed). */
  drop(): void {
    this.#store.drop(this);
    this.#streams.clear();
  }

  /** The newest streams used, the one used now last (a Set keeps insertion order). */
  #remember(stream: string): void {
    this.#streams.delete(stream);
    this.#streams.add(stream);
    if (this.#streams.size > STREAMS_REMEMBERED) this.#streams.delete(this.#streams.values().next().value!);
  }

  #parse(eventId: string): { stream: string; n: number } | undefined {
    const cut = eventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const stream = eventId.slice(0, cut);
    const n = Number(eventId.slice(cut + 1));
    if (!Number.isSafeInteger(n) || !this.#streams.has(stream)) return undefined;
    return { stream, n };
  }
}
