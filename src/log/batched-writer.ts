import { write as fsWrite, writeSync as fsWriteSync } from 'node:fs';

/** The file calls a writer makes; tests put failing ones in. */
export interface WriterIo {
  write(fd: number, buffer: Buffer, offset: number, length: number, done: (err: NodeJS.ErrnoException | null, written: number) => void): void;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number;
}

const NODE_IO: WriterIo = {
  write: (fd, buffer, offset, length, done) => fsWrite(fd, buffer, offset, length, null, done),
  writeSync: (fd, buffer, offset, length) => fsWriteSync(fd, buffer, offset, length),
};

/** A full pipe or terminal (a non-blocking descriptor): wait, then write the same bytes again. */
const RETRY_MS = 100;
/** flushSync on a full descriptor: at most this many waits of RETRY_MS, then what is left is dropped. */
const SYNC_RETRIES = 10;
const waitCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Log lines to a file descriptor, collected and written in batches: each line is encoded into a
 * byte buffer as it comes, and once `minLength` bytes have collected and no write is in flight they
 * go out in one asynchronous write (libuv's thread pool, as pino's sonic-boom writes). While a write
 * is in flight, lines collect in a second buffer. sonic-boom's own collecting, which this replaces,
 * cost the main loop 2.5 to 5 µs a line: it appends each line to a string and measures that
 * string's UTF-8 length on every write, copying all that has collected so far each time.
 *
 * `flush()` writes what has collected without waiting for `minLength` (now, or as soon as the write
 * in flight is done); `flushSync()` writes it synchronously, for the way out of the process (a
 * batch in flight then is finished by the thread pool, which libuv drains before the process ends).
 * A destination that fails with anything but "try again" (stderr closed) is given up: later lines
 * are dropped, since a log has nowhere to report its own failure and must not take the bridge down.
 */
export class BatchedWriter {
  readonly #fd: number;
  readonly #minLength: number;
  readonly #io: WriterIo;
  #buffer: Buffer;
  #length = 0;
  /** The other buffer, free while no write is in flight. */
  #spare: Buffer;
  #writing = false;
  #flushAsked = false;
  #broken = false;
  readonly #flushWithinMs: number;
  #timer: NodeJS.Timeout | null = null;
  /** flush() callbacks, called once nothing is left to write. */
  #whenIdle: Array<() => void> = [];

  /**
   * `flushWithinMs`: the first line collected after a flush arms one timer that flushes what has
   * collected by then, so no line waits longer than that plus its write (0: no timer).
   */
  constructor(fd: number, options: { minLength?: number; flushWithinMs?: number; io?: WriterIo } = {}) {
    this.#fd = fd;
    this.#minLength = options.minLength ?? 4096;
    this.#flushWithinMs = options.flushWithinMs ?? 0;
    this.#io = options.io ?? NODE_IO;
    this.#buffer = Buffer.allocUnsafe(this.#minLength * 4);
    this.#spare = Buffer.allocUnsafe(this.#minLength * 4);
  }

  /** Adds a line (pino's stream interface: always true, nothing to wait for). */
  write(line: string): boolean {
    // 3 bytes at most a UTF-16 unit.
    return this.#append(line, 'utf8', line.length * 3);
  }

  /**
   * Adds a line the caller knows to be ASCII: its characters are its bytes, copied as they are
   * rather than encoded (the request line, whose only free text is mostly ASCII names).
   */
  writeAscii(line: string): boolean {
    return this.#append(line, 'latin1', line.length);
  }

  #append(line: string, encoding: 'utf8' | 'latin1', mostBytes: number): boolean {
    if (this.#broken) return true;
    if (this.#timer === null && this.#flushWithinMs > 0) {
      this.#timer = setTimeout(this.#onTimer, this.#flushWithinMs);
      this.#timer.unref();
    }
    // A line that might not fit gets a bigger buffer first.
    if (this.#length + mostBytes > this.#buffer.length) this.#grow(mostBytes);
    this.#length += this.#buffer.write(line, this.#length, encoding);
    if (!this.#writing && this.#length >= this.#minLength) this.#writeOut();
    return true;
  }

  /** Writes what has collected, however little, without waiting for it; `done` once it is written. */
  flush(done?: () => void): void {
    if (done) this.#whenIdle.push(done);
    if (this.#writing) this.#flushAsked = true;
    else if (this.#length > 0 && !this.#broken) this.#writeOut();
    else this.#idle();
  }

  /** Writes what has collected before returning (a batch already in flight is not written again). */
  flushSync(): void {
    let offset = 0;
    let retries = 0;
    while (offset < this.#length && !this.#broken) {
      try {
        offset += this.#io.writeSync(this.#fd, this.#buffer, offset, this.#length - offset);
      } catch (err) {
        if (!tryAgain(err as NodeJS.ErrnoException) || ++retries > SYNC_RETRIES) this.#broken = true;
        else Atomics.wait(waitCell, 0, 0, RETRY_MS);
      }
    }
    this.#length = 0;
  }

  readonly #onTimer = () => {
    this.#timer = null;
    this.flush();
  };

  #idle(): void {
    if (this.#whenIdle.length === 0) return;
    const callbacks = this.#whenIdle;
    this.#whenIdle = [];
    for (const callback of callbacks) process.nextTick(callback);
  }

  #grow(room: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#length + room));
    this.#buffer.copy(bigger, 0, 0, this.#length);
    this.#buffer = bigger;
  }

  #writeOut(): void {
    const out = this.#buffer;
    const length = this.#length;
    this.#buffer = this.#spare;
    this.#length = 0;
    this.#writing = true;
    this.#flushAsked = false;
    let offset = 0;
    const done = (err: NodeJS.ErrnoException | null, written: number) => {
      if (err) {
        if (tryAgain(err)) {
          setTimeout(() => this.#io.write(this.#fd, out, offset, length - offset, done), RETRY_MS);
          return;
        }
        this.#broken = true;
        this.#length = 0;
      } else {
        offset += written;
        if (offset < length) {
          this.#io.write(this.#fd, out, offset, length - offset, done);
          return;
        }
      }
      this.#spare = out;
      this.#writing = false;
      if (!this.#broken && (this.#length >= this.#minLength || (this.#flushAsked && this.#length > 0))) this.#writeOut();
      else this.#idle();
    };
    this.#io.write(this.#fd, out, 0, length, done);
  }
}

function tryAgain(err: NodeJS.ErrnoException): boolean {
  return err.code === 'EAGAIN' || err.code === 'EBUSY';
}
