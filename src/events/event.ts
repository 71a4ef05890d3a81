// decisions §7: one event, `{ seq, kind, tick, at_utc, kingdom_ids, ...fields }`. Kept once on the
// main loop; its JSON and its SSE frame are built the first time someone needs them, once, and
// shared by every subscriber and every recv_events that returns it. The history builds the JSON as
// it keeps the event (decisions §13: it counts the bytes it keeps).
import type { CallerContext } from '../shared/caller.ts';
import { jsonString } from '../shared/json-string.ts';
import { fogClaim, type Audienced, type Restriction } from './audience.ts';

// `fogged` belongs to the envelope of the fog form: a game's field of that name would be taken for it.
const RESERVED = new Set(['seq', 'kind', 'tick', 'at_utc', 'kingdom_ids', 'fogged']);

/**
 * An event's fields: an object, or its members already written as JSON text, each after a comma
 * (`,"agent":"athena","ok":true`), exactly as JSON.stringify would write that object. The text form
 * is for the record of every POST /cmd (`command`): it skips building the object, copying it into
 * the event and the serialiser's walk of its keys. It must name no field of the envelope.
 */
export type EventFields = Record<string, unknown> | string;

/** An event's JSON and SSE frame, as one caller gets them. */
interface View {
  json: string;
  frame: Uint8Array;
}

export class StoredEvent implements Audienced {
  readonly seq: number;
  readonly kind: string;
  readonly tick: number;
  readonly atUtc: string;
  readonly kingdomIds: readonly number[];
  /** The kind's fields until the JSON is built; then only the JSON is kept (history memory). */
  #fields: EventFields | undefined;
  readonly restrict: Restriction | null;
  /** Fields the fog form cuts (the game's eventFog for this kind). */
  readonly #fogHides: ReadonlySet<string> | null;
  #json: string | undefined;
  #bytes: number | undefined;
  #frame: Uint8Array | undefined;
  /** Fog forms by claim, built the first time a fogged caller with that claim gets the event. */
  #fogged: Map<number, View> | undefined;

  constructor(
    seq: number,
    kind: string,
    tick: number,
    atUtc: string,
    kingdomIds: readonly number[],
    fields: EventFields | undefined,
    restrict: Restriction | null,
    fogHides: ReadonlySet<string> | null = null,
  ) {
    this.seq = seq;
    this.kind = kind;
    this.tick = tick;
    this.atUtc = atUtc;
    this.kingdomIds = kingdomIds;
    this.#fields = fields;
    this.restrict = restrict;
    this.#fogHides = fogHides;
  }

  /** The JSON `caller` gets: the event, or its fog form. */
  jsonFor(caller: CallerContext): string {
    const claim = fogClaim(caller, this);
    return claim === null ? this.json : this.#fog(claim).json;
  }

  /** The SSE frame `caller` gets: the event's, or its fog form's. */
  frameFor(caller: CallerContext): Uint8Array {
    const claim = fogClaim(caller, this);
    return claim === null ? this.frame : this.#fog(claim).frame;
  }

  /**
   * The fog form for `claim`: the kingdom list names `claim` alone, the fields the game declared
   * for this kind are cut, and `fogged` lists those cut (empty when only the list was narrowed).
   */
  #fog(claim: number): View {
    this.#fogged ??= new Map();
    let view = this.#fogged.get(claim);
    if (view === undefined) {
      const full = JSON.parse(this.json) as Record<string, unknown>;
      const cut: string[] = [];
      const out: Record<string, unknown> = { seq: this.seq, kind: this.kind, tick: this.tick, at_utc: this.atUtc, kingdom_ids: [claim] };
      for (const key of Object.keys(full)) {
        if (RESERVED.has(key)) continue;
        if (this.#fogHides?.has(key)) cut.push(key);
        else out[key] = full[key];
      }
      out.fogged = cut;
      const json = JSON.stringify(out);
      view = { json, frame: Buffer.from(`id: ${this.seq}\nevent: ${this.kind}\ndata: ${json}\n\n`) };
      this.#fogged.set(claim, view);
    }
    return view;
  }

  /** The event as a plain object: the envelope first; a field may not override it. */
  #toObject(): Record<string, unknown> {
    const out: Record<string, unknown> = { seq: this.seq, kind: this.kind, tick: this.tick, at_utc: this.atUtc, kingdom_ids: this.kingdomIds };
    const fields = this.#fields as Record<string, unknown> | undefined;
    if (fields) for (const key of Object.keys(fields)) if (!RESERVED.has(key)) out[key] = fields[key];
    return out;
  }

  get json(): string {
    if (this.#json === undefined) {
      const fields = this.#fields;
      if (typeof fields === 'string') {
        // The envelope as JSON.stringify writes it: at_utc is an ISO time (nothing to escape).
        const tick = Number.isFinite(this.tick) ? this.tick : 'null';
        const kingdoms = this.kingdomIds.length === 0 ? '[]' : JSON.stringify(this.kingdomIds);
        this.#json = `{"seq":${this.seq},"kind":${jsonString(this.kind)},"tick":${tick},"at_utc":"${this.atUtc}","kingdom_ids":${kingdoms}${fields}}`;
        this.#fields = undefined;
        return this.#json;
      }
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
      this.#fields = undefined;
    }
    return this.#json;
  }

  /** UTF-8 bytes of the event's JSON: what the history counts against its byte bound. */
  get bytes(): number {
    this.#bytes ??= Buffer.byteLength(this.json);
    return this.#bytes;
  }

  /** The SSE frame: `id:` the seq, `event:` the kind, `data:` the JSON (one line: JSON.stringify escapes newlines). */
  get frame(): Uint8Array {
    this.#frame ??= Buffer.from(`id: ${this.seq}\nevent: ${this.kind}\ndata: ${this.json}\n\n`);
    return this.#frame;
  }
}
