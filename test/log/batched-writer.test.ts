// src/log/batched-writer.ts: log lines are written in batches, in order, every byte of them, whatever
// the descriptor does (short writes, "try again", gone), and flushSync writes what has collected.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { BatchedWriter, type WriterIo } from '../../src/log/batched-writer.ts';
import { createLogger, rawStreamOf } from '../../src/log/logger.ts';
import { tempDir } from '../helpers/bridge.ts';

type Done = (err: NodeJS.ErrnoException | null, written: number) => void;

/** A descriptor held in memory: asynchronous writes wait until `complete()` (or complete at once with `auto`). */
function fakeIo(options: { maxWrite?: number; auto?: boolean; fail?: (call: number) => string | null } = {}) {
  const written: Buffer[] = [];
  const pending: Array<() => void> = [];
  let calls = 0;
  const take = (buffer: Buffer, offset: number, length: number) => {
    const n = Math.min(length, options.maxWrite ?? length);
    written.push(Buffer.from(buffer.subarray(offset, offset + n)));
    return n;
  };
  const io: WriterIo = {
    write(_fd, buffer, offset, length, done: Done) {
      const code = options.fail?.(++calls) ?? null;
      const run = () => (code ? done(Object.assign(new Error(code), { code }), 0) : done(null, take(buffer, offset, length)));
      if (options.auto) setImmediate(run);
      else pending.push(run);
    },
    writeSync(_fd, buffer, offset, length) {
      const code = options.fail?.(++calls) ?? null;
      if (code) throw Object.assign(new Error(code), { code });
      return take(buffer, offset, length);
    },
  };
  return {
    io,
    text: () => Buffer.concat(written).toString('utf8'),
    writes: () => written.length,
    inFlight: () => pending.length,
    complete: () => pending.shift()?.(),
  };
}

const line = (i: number) => `{"level":30,"n":${i},"msg":"${'x'.repeat(80)}"}\n`;
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => line(from + i)).join('');
const settled = () => new Promise((resolve) => setImmediate(resolve));

t.test('lines collect until minLength, then go out in one write; meanwhile the next ones collect', async (t) => {
  const fd = fakeIo();
  const writer = new BatchedWriter(2, { minLength: 1024, io: fd.io });
  let n = 0;
  while (n * line(0).length < 1024 - line(0).length) writer.write(line(n++));
  t.equal(fd.inFlight(), 0, 'under minLength: nothing written yet');
  writer.write(line(n++));
  t.equal(fd.inFlight(), 1, 'minLength reached: one write');
  const first = n;
  for (let i = 0; i < 30; i++) writer.write(line(n++));
  t.equal(fd.inFlight(), 1, 'while it is in flight, no second write');
  fd.complete();
  t.equal(fd.inFlight(), 1, 'what collected meanwhile goes out as it completes');
  fd.complete();
  t.equal(fd.text(), lines(0, n), 'every line, in order');
  t.equal(fd.writes(), 2);
  t.ok(first > 1, 'the first write carried several lines');
});

t.test('flush writes what has collected, however little, and calls back once it is written', async (t) => {
  const fd = fakeIo({ auto: true });
  const writer = new BatchedWriter(2, { minLength: 4096, io: fd.io });
  writer.write(line(0));
  const flushed = new Promise<void>((resolve) => writer.flush(resolve));
  await flushed;
  t.equal(fd.text(), line(0));
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.pass('a flush with nothing to write calls back too');
});

t.test('a flush asked during a write is honoured when it completes', async (t) => {
  const fd = fakeIo();
  const writer = new BatchedWriter(2, { minLength: 256, io: fd.io });
  writer.write(lines(0, 3));
  writer.write(line(3));
  let called = false;
  writer.flush(() => (called = true));
  fd.complete();
  t.equal(fd.inFlight(), 1, 'the short rest goes out at once');
  fd.complete();
  await settled();
  t.ok(called);
  t.equal(fd.text(), lines(0, 4));
});

t.test('flushWithinMs: a lonely line is written without a flush', async (t) => {
  const fd = fakeIo({ auto: true });
  const writer = new BatchedWriter(2, { minLength: 4096, flushWithinMs: 20, io: fd.io });
  writer.write(line(0));
  const deadline = Date.now() + 10_000;
  while (fd.text() === '' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(fd.text(), line(0));
  writer.write(line(1));
  while (fd.text() === line(0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(fd.text(), lines(0, 2), 'the next line after a flush arms the timer again');
});

t.test('short writes: the rest is written until every byte is out', async (t) => {
  const fd = fakeIo({ auto: true, maxWrite: 100 });
  const writer = new BatchedWriter(2, { minLength: 512, io: fd.io });
  writer.write(lines(0, 50));
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.equal(fd.text(), lines(0, 50));
  t.ok(fd.writes() > 10);
});

t.test('"try again" (a full pipe or terminal): the same bytes are written again later', async (t) => {
  const fd = fakeIo({ auto: true, fail: (call) => (call <= 2 ? 'EAGAIN' : null) });
  const writer = new BatchedWriter(2, { minLength: 64, io: fd.io });
  writer.write(lines(0, 5));
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.equal(fd.text(), lines(0, 5));
});

t.test('a descriptor that is gone (EPIPE): later lines are dropped, nothing throws, flush still calls back', async (t) => {
  const fd = fakeIo({ auto: true, fail: () => 'EPIPE' });
  const writer = new BatchedWriter(2, { minLength: 64, io: fd.io });
  writer.write(lines(0, 5));
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.equal(writer.write(line(5)), true);
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.doesNotThrow(() => writer.flushSync());
  t.equal(fd.text(), '');
});

t.test('flushSync writes what collected since the batch in flight, not that batch again', async (t) => {
  const fd = fakeIo();
  const writer = new BatchedWriter(2, { minLength: 256, io: fd.io });
  writer.write(lines(0, 3));
  t.equal(fd.inFlight(), 1);
  writer.write(line(3));
  writer.flushSync();
  t.equal(fd.text(), line(3), 'only the line collected since');
  fd.complete();
  t.equal(fd.text(), line(3) + lines(0, 3), 'the batch in flight lands on its own');
  writer.flushSync();
  t.equal(fd.text(), line(3) + lines(0, 3), 'nothing twice');
});

t.test('flushSync waits out "try again", and gives up on a descriptor that never takes the bytes', async (t) => {
  const once = fakeIo({ fail: (call) => (call === 1 ? 'EAGAIN' : null) });
  const writer = new BatchedWriter(2, { minLength: 4096, io: once.io });
  writer.write(line(0));
  writer.flushSync();
  t.equal(once.text(), line(0));
  const never = fakeIo({ fail: () => 'EAGAIN' });
  const stuck = new BatchedWriter(2, { minLength: 4096, io: never.io });
  stuck.write(line(0));
  stuck.flushSync();
  t.equal(never.text(), '', 'returned, with the line dropped');
});

t.test('a line longer than the buffer, and characters of every UTF-8 length, are written whole', async (t) => {
  const fd = fakeIo({ auto: true });
  const writer = new BatchedWriter(2, { minLength: 64, io: fd.io });
  const long = `{"msg":"${'é😀a'.repeat(20_000)}"}\n`;
  writer.write(line(0));
  writer.write(long);
  writer.write('{"lone":"\ud800"}\n');
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.equal(fd.text(), `${line(0)}${long}{"lone":"\ufffd"}\n`, 'a lone surrogate as U+FFFD, as any UTF-8 write of it');
});

t.test('writeAscii: an ASCII line as the same bytes as write, in order with the others', async (t) => {
  const fd = fakeIo({ auto: true });
  const writer = new BatchedWriter(2, { minLength: 64, io: fd.io });
  writer.writeAscii(line(0));
  writer.write('{"agent":"é"}\n');
  writer.writeAscii(lines(1, 40));
  await new Promise<void>((resolve) => writer.flush(resolve));
  t.equal(fd.text(), `${line(0)}{"agent":"é"}\n${lines(1, 40)}`);
});

t.test('through a real file: 20,000 lines, every one in order', async (t) => {
  const file = join(tempDir('gcb-writer-'), 'log');
  const fdNumber = openSync(file, 'w');
  const writer = new BatchedWriter(fdNumber, { minLength: 4096 });
  for (let i = 0; i < 20_000; i++) {
    writer.write(line(i));
    if (i % 500 === 0) await settled();
  }
  await new Promise<void>((resolve) => writer.flush(resolve));
  closeSync(fdNumber);
  t.equal(readFileSync(file, 'utf8'), lines(0, 20_000));
});

t.test("every logger of the process's stderr shares one writer", async (t) => {
  const a = rawStreamOf(createLogger());
  t.ok(a instanceof BatchedWriter);
  t.equal(rawStreamOf(createLogger()), a);
});
