// A Server-Sent Events parser (the WHATWG "event stream" interpretation), fed text as it arrives.
// Lines end with CRLF, LF or CR, and a chunk may end anywhere: inside a line, inside a field name,
// or between the CR and the LF of one line end, so a trailing CR is held until the next chunk says
// whether an LF follows. Decoding UTF-8 across chunk boundaries is the caller's job (a streaming
// TextDecoder), as is the byte-order mark (TextDecoder drops it).

/** One dispatched event: what a blank line ends. */
export interface SseMessage {
  type: 'message';
  /** The `event:` field, `message` when none was sent. */
  event: string;
  /** The `data:` lines joined with LF. */
  data: string;
  /** The `id:` field of this block, or undefined when the block had none (a gap notice). */
  id: string | undefined;
}

/** A comment line (`: keep-alive`): proof the connection is alive, nothing more. */
export interface SseComment {
  type: 'comment';
  text: string;
}

/** A `retry:` field: the reconnection time the server asks for, in ms. */
export interface SseRetry {
  type: 'retry';
  ms: number;
}

export type SseItem = SseMessage | SseComment | SseRetry;

export class SseParser {
  #tail = '';
  /** The previous chunk ended with CR: an LF starting this one belongs to that line end. */
  #pendingCr = false;
  #event = '';
  #data: string[] = [];
  #id: string | undefined;
  /** The last event ID buffer: persists across events, as in EventSource. */
  lastEventId = '';

  /** Parses what `chunk` completes; returns the items in order. */
  feed(chunk: string): SseItem[] {
    const out: SseItem[] = [];
    if (chunk === '') return out;
    let text = chunk;
    if (this.#pendingCr) {
      this.#pendingCr = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    text = this.#tail + text;
    let start = 0;
    for (;;) {
      const cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      if (cr === -1 && lf === -1) break;
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === text.length) {
          // A CR at the very end: the line is complete, but an LF may start the next chunk.
          this.#pendingCr = true;
          next = cr + 1;
        } else {
          next = text[cr + 1] === '\n' ? cr + 2 : cr + 1;
        }
      } else {
        end = lf;
        next = lf + 1;
      }
      this.#line(text.slice(start, end), out);
      start = next;
    }
    this.#tail = text.slice(start);
    return out;
  }

  /** The stream ended: an event without its closing blank line is discarded (as EventSource does). */
  end(): void {
    this.#tail = '';
    this.#pendingCr = false;
    this.#reset();
  }

  #line(line: string, out: SseItem[]): void {
    if (line === '') {
      this.#dispatch(out);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      out.push({ type: 'comment', text: line.slice(1).replace(/^ /, '') });
      return;
    }
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        // An id holding NUL is ignored (it could not be sent back in Last-Event-ID).
        if (!value.includes('\0')) {
          this.#id = value;
          this.lastEventId = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) out.push({ type: 'retry', ms: Number(value) });
        break;
      default:
      // Unknown fields are ignored.
    }
  }

  #dispatch(out: SseItem[]): void {
    // A block without data dispatches nothing (but an id in it still set lastEventId).
    if (this.#data.length > 0) out.push({ type: 'message', event: this.#event === '' ? 'message' : this.#event, data: this.#data.join('\n'), id: this.#id });
    this.#reset();
  }

  #reset(): void {
    this.#event = '';
    this.#data = [];
    this.#id = undefined;
  }
}
