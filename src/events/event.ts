// decisions §7: one event, `{ seq, kind, tick, at_utc, kingdom_ids, ...fields }`. Kept once on the
// main loop; its JSON and its SSE frame are built the first time someone needs them, once, and
// shared by every subscriber and every recv_events that returns it.
import type { Audienced, Restriction } from './audience.ts';

const RESERVED = new Set(['seq', 'kind', 'tick', 'at_utc', 'kingdom_ids']);

export class StoredEvent implements Audienced {
  readonly seq: number;
  readonly kind: string;
  readonly tick: number;
  readonly atUtc: string;
  readonly kingdomIds: readonly number[];
  /** The kind's fields until the JSON is built; then only the JSON is kept (history memory). */
  #fields: Record<string, unknown> | undefined;
  readonly restrict: Restriction | null;
  #json: string | undefined;
  #frame: Uint8Array | undefined;

  constructor(
    seq: number,
    kind: string,
    tick: number,
    atUtc: string,
    kingdomIds: readonly number[],
    fields: Record<string, unknown> | undefined,
    restrict: Restriction | null,
  ) {
    this.seq = seq;
    this.kind = kind;
    this.tick = tick;
    this.atUtc = atUtc;
    this.kingdomIds = kingdomIds;
    this.#fields = fields;
    this.restrict = restrict;
  }

  /** The event as a plain object: the envelope first; a field may not override it. */
  #toObject(): Record<string, unknown> {
    const out: Record<string, unknown> = { seq: this.seq, kind: this.kind, tick: this.tick, at_utc: this.atUtc, kingdom_ids: this.kingdomIds };
    const fields = this.#fields;
    if (fields) for (const key of Object.keys(fields)) if (!RESERVED.has(key)) out[key] = fields[key];
    return out;
  }

  get json(): string {
    if (this.#json === undefined) {
      try {
        this.#json = JSON.stringify(this.#toObject());
      } catch {
        // A field JSON cannot hold (a BigInt, a cycle): the event keeps its envelope only.
        this.#json = JSON.stringify({
          seq: this.seq,
          kind: this.kind,
          tick: this.tick,
          at_utc: this.atUtc,
          kingdom_ids: this.kingdomIds,
          unserialisable: true,
        });
      }
    }
    return this.#json;
  }

  /** The SSE frame: `id:` the seq, `event:` the kind, `data:` the JSON (one line: JSON.stringify escapes newlines). */
  get frame(): Uint8Array {
    this.#frame ??= Buffer.from(`id: ${this.seq}\nevent: ${this.kind}\ndata: ${this.json}\n\n`);
    return this.#frame;
  }
}
