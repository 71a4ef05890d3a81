// decisions §12: the episode record a game thread keeps while record_start ... record_stop run.
// It follows the world through the clock's hooks, as any feature could: each placed command is a
// line, a hash line follows every command that moved the tick (step, rewind) and, under realtime,
// the first frame past every 60th tick, and a world swap ends the record (a record covers one world). One record at a
// time per game thread. The file format itself is shared/episode-format.ts's.
// decisions §15: the lines leave the game thread to be written (fileSink): a slow disk delays the
// file, never a frame.
import { close, write } from 'node:fs';
import { gameRejected } from '../../errors/bridge-error.ts';
import type { PlacedCommand, WorldClock } from '../../shared/frame.ts';
import { endLine, type EpisodeCommand, type EpisodeHeader, hashLine, type RecordEnd } from '../../shared/episode-format.ts';

/** Where the lines go: a file written off the game thread, or a test's buffer. */
export interface RecordSink {
  /** Takes the text at once; never blocks. */
  write(text: string): void;
  /** Resolves once everything taken is written and the file closed: null, or the write's error. Never rejects. */
  close(): Promise<Error | null>;
}

export interface RecordStopped {
  name: string;
  path: string;
  reason: RecordEnd;
  /** Lines written, the end line included. */
  lines: number;
  bytes: number;
  /** The world when the record ended (its end line). */
  tick: number;
  hash: string;
}

export interface RecorderOptions {
  name: string;
  /** The path answers and events show (relative to the config dir). */
  path: string;
  sink: RecordSink;
  header: EpisodeHeader;
  clock: WorldClock;
  /** The world's tick and digest now. */
  world(): { tick: number; hash: string };
  /** Past this many bytes the record stops itself (the line that would cross it is not written). */
  maxBytes: number;
  /** Under realtime a hash line every this many ticks. */
  hashEveryTicks: number;
  /** The record ended (record_stop, the byte bound, a world swap): its last figures. */
  onStop(stopped: RecordStopped): void;
}

export class Recorder {
  readonly name: string;
  readonly path: string;
  readonly #options: RecorderOptions;
  readonly #removers: Array<() => void>;
  /**
   * While the world is still at the record's first tick: the order of the first command recorded
   * there, which counts as order 0. Null once the tick has moved (orders count from 0 again).
   */
  #firstTick: { firstOrder: number | null } | null = { firstOrder: null };
  #lastHashedTick: number;
  #bytes = 0;
  #lines = 0;
  #stopped = false;
  #closed: Promise<Error | null> | null = null;

  constructor(options: RecorderOptions) {
    this.#options = options;
    this.name = options.name;
    this.path = options.path;
    this.#lastHashedTick = options.header.tick;
    this.#append(JSON.stringify(options.header));
    const { clock } = options;
    this.#removers = [
      clock.onCommand((command) => this.#command(command)),
      clock.onTick((tick, movedBy) => this.#tick(tick, movedBy)),
      clock.onWorldSwap(() => this.stop('world_swapped')),
      // The bridge closing: what is taken reaches the file. No end line: the record was cut short.
      clock.onClose(() => (this.#closed ??= this.#options.sink.close())),
    ];
  }

  /**
   * Once stopped: resolves when the file holds every line (null) or a write failed (its error).
   * Null before the record stops.
   */
  get closed(): Promise<Error | null> | null {
    return this.#closed;
  }

  get lines(): number {
    return this.#lines;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Ends the record with its end line (the world's tick and hash now) and closes the file. */
  stop(reason: RecordEnd): RecordStopped {
    const { tick, hash } = this.#options.world();
    if (this.#stopped) return { name: this.name, path: this.path, reason, lines: this.#lines, bytes: this.#bytes, tick, hash };
    this.#stopped = true;
    for (const remove of this.#removers) remove();
    // The end line is always written: the bound keeps room for it.
    this.#write(endLine(tick, hash, reason, this.#lines));
    this.#closed = this.#options.sink.close();
    const stopped = { name: this.name, path: this.path, reason, lines: this.#lines, bytes: this.#bytes, tick, hash };
    this.#options.onStop(stopped);
    return stopped;
  }

  #command(command: PlacedCommand): void {
    const { tick, order } = command.place;
    // Orders count from 0 among the record's own commands at its first tick, so a replay whose
    // record starts after other commands of that tick writes the same lines.
    let recordOrder = order;
    if (this.#firstTick !== null && tick === this.#options.header.tick) {
      this.#firstTick.firstOrder ??= order;
      recordOrder = order - this.#firstTick.firstOrder;
    }
    const line: EpisodeCommand = { tick, order: recordOrder, agent: command.agent, name: command.name, args: command.args, code: command.code };
    const id = (command.result as { id?: unknown } | undefined)?.id;
    if (command.name === 'savepoint' && typeof id === 'number') line.id = id;
    if (!this.#append(JSON.stringify(line))) return;
    const now = this.#options.world();
    if (now.tick !== tick) this.#hash(now.tick, now.hash);
  }

  #tick(tick: number, movedBy: 'command' | 'frame'): void {
    // A command that moves the tick (step) has its own hash line after its line.
    if (movedBy !== 'frame') return;
    const every = this.#options.hashEveryTicks;
    if (Math.floor(tick / every) === Math.floor(this.#lastHashedTick / every)) return;
    const now = this.#options.world();
    this.#hash(now.tick, now.hash);
  }

  #hash(tick: number, hash: string): void {
    this.#firstTick = null;
    this.#lastHashedTick = tick;
    this.#append(hashLine(tick, hash));
  }

  /** Writes a line unless it would cross the bound; then the record stops instead. */
  #append(text: string): boolean {
    if (this.#stopped) return false;
    const bytes = Buffer.byteLength(text) + 1;
    if (this.#bytes + bytes + RESERVED_FOR_END > this.#options.maxBytes) {
      this.stop('max_bytes');
      return false;
    }
    this.#write(text);
    return true;
  }

  #write(text: string): void {
    this.#options.sink.write(`${text}\n`);
    this.#bytes += Buffer.byteLength(text) + 1;
    this.#lines++;
  }
}

/** Room kept for the end line: its figures never make it longer than this. */
const RESERVED_FOR_END = 256;

/**
 * decisions §15: a record's file as the game thread writes it. The lines are taken at once and
 * written by libuv's threads, one write at a time with what has gathered meanwhile, so the game
 * thread never waits for the disk; its callbacks run between frames (under lockstep, between
 * drains). What waits in memory is bounded by the record's own bound (256 MiB). `fd` was opened
 * by the pool step (createRecordFile), write-only and new.
 */
export function fileSink(fd: number): RecordSink {
  let gathered: string[] = [];
  let writing = false;
  let closing = false;
  let failed: Error | null = null;
  let done!: (error: Error | null) => void;
  const closed = new Promise<Error | null>((resolve) => (done = resolve));
  const next = (): void => {
    if (writing) return;
    if (gathered.length === 0 || failed !== null) {
      gathered = [];
      if (closing) close(fd, (err) => done(failed ?? err ?? null));
      return;
    }
    const chunk = Buffer.from(gathered.join(''));
    gathered = [];
    writing = true;
    writeAll(fd, chunk, 0, (err) => {
      writing = false;
      failed ??= err;
      next();
    });
  };
  return {
    write(text) {
      if (closing || failed !== null) return;
      gathered.push(text);
      next();
    },
    close() {
      if (!closing) {
        closing = true;
        next();
      }
      return closed;
    },
  };
}

/** Writes `chunk` from `offset` on, however many writes it takes. */
function writeAll(fd: number, chunk: Buffer, offset: number, then: (err: Error | null) => void): void {
  write(fd, chunk, offset, chunk.length - offset, null, (err, written) => {
    if (err) return then(err);
    if (offset + written < chunk.length) return writeAll(fd, chunk, offset + written, then);
    then(null);
  });
}

const recorders = new WeakMap<WorldClock, { current: Recorder | null }>();

/** The game thread's record holder (found through its clock): at most one record at a time. */
export function recordHolderOf(clock: WorldClock): { current: Recorder | null } {
  let holder = recorders.get(clock);
  if (holder === undefined) {
    holder = { current: null };
    recorders.set(clock, holder);
  }
  return holder;
}

/** GAME_REJECTED when a record is running: one at a time. */
export function checkNotRecording(holder: { current: Recorder | null }): void {
  const running = holder.current;
  if (running !== null && !running.stopped) {
    throw gameRejected(`a record is running (${running.path}); record_stop it first: one record at a time`, 'RecordRunning');
  }
}
