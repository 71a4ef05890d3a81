// decisions §12, the recorder on its own (commands/shared/recorder.ts), driven through a real world
// clock with a pretend world: the byte bound (the record stops itself with its end line, reason
// max_bytes, and reports it), orders counted from the record's first command at its first tick and
// from 0 again once the tick moved (a rewind back to that tick included), hash lines after a command
// that moved the tick and after the first frame past every 60th tick, and a world swap ending it.
import { fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fileSink, Recorder, type RecordStopped } from '../../src/commands/shared/recorder.ts';
import { tempDir } from '../helpers/bridge.ts';
import { createWorldClock } from '../../src/dispatch/world-clock.ts';
import { parseEpisode, type EpisodeHeader } from '../../src/shared/episode-format.ts';

function harness(options: { maxBytes?: number; mode?: 'realtime' | 'lockstep'; startTick?: number; firstOrder?: number } = {}) {
  const world = { tick: options.startTick ?? 10 };
  const hashOf = (tick: number) => tick.toString(16).padStart(16, '0');
  const clock = createWorldClock({ mode: options.mode ?? 'lockstep', currentTick: () => world.tick, closeTick: () => world.tick });
  let text = '';
  let closed = 0;
  const stops: RecordStopped[] = [];
  const header: EpisodeHeader = { format: 1, mod_version: '0.5.0', game: 'test', seed: 1, width: 128, height: 128, tick: world.tick, hash: hashOf(world.tick) };
  const recorder = new Recorder({
    name: 'r',
    path: 'episodes/r.jsonl',
    sink: { write: (chunk) => void (text += chunk), close: () => (closed++, Promise.resolve(null)) },
    header,
    clock,
    world: () => ({ tick: world.tick, hash: hashOf(world.tick) }),
    maxBytes: options.maxBytes ?? 1 << 20,
    hashEveryTicks: 60,
    onStop: (stopped) => stops.push(stopped),
  });
  let order = options.firstOrder ?? 0;
  let orderTick = world.tick;
  /** A command placed now, as the drainer would report it; `moveTo` moves the world as its step ran. */
  const command = (name: string, moveTo?: number) => {
    if (orderTick !== world.tick) {
      orderTick = world.tick;
      order = 0;
    }
    const place = { tick: world.tick, order: order++ };
    if (moveTo !== undefined) world.tick = moveTo;
    clock.commandPlaced({ place, agent: 'a', name, args: { n: 1 }, code: null });
  };
  return {
    world,
    clock,
    recorder,
    command,
    stops,
    text: () => text,
    closed: () => closed,
    lines: () =>
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
  };
}

t.test('orders count from the first recorded command at the first tick, and from 0 once the tick moved', async (t) => {
  // Two commands of tick 10 ran before the record started: the drainer's orders go on from 2.
  const h = harness({ firstOrder: 2 });
  h.command('spawn'); // seen: order 0 of the record
  h.command('spawn');
  h.command('step', 15);
  h.command('paint_tile');
  h.command('rewind', 10); // back to the first tick: orders from 0 again, as the places do
  h.command('spawn');
  h.recorder.stop('record_stop');
  const commands = h.lines().filter((line: Record<string, unknown>) => 'name' in line);
  t.same(
    commands.map((line: Record<string, unknown>) => [line.name, line.tick, line.order]),
    [
      ['spawn', 10, 0],
      ['spawn', 10, 1],
      ['step', 10, 2],
      ['paint_tile', 15, 0],
      ['rewind', 15, 1],
      ['spawn', 10, 0],
    ],
  );
  const episode = parseEpisode(h.text(), '0.5.3');
  t.same(
    episode.entries.filter((entry) => entry.kind === 'hash').map((entry) => entry.tick),
    [15, 10],
    'a hash line after each command that moved the tick',
  );
  t.match(episode.end, { end: 'record_stop', tick: 10, lines: h.lines().length });
  t.equal(h.closed(), 1);
});

t.test('past its byte bound the record stops itself: the end line says max_bytes and onStop reports it', async (t) => {
  const h = harness({ maxBytes: 2048 });
  for (let i = 0; i < 100 && !h.recorder.stopped; i++) h.command('spawn');
  t.ok(h.recorder.stopped, 'it stopped');
  t.ok(Buffer.byteLength(h.text()) <= 2048, `the file stays within the bound (${Buffer.byteLength(h.text())} bytes)`);
  t.match(h.lines().at(-1), { end: 'max_bytes' });
  t.equal(h.stops.length, 1);
  t.match(h.stops[0], { name: 'r', path: 'episodes/r.jsonl', reason: 'max_bytes', bytes: Buffer.byteLength(h.text()) });
  const before = h.text();
  h.command('spawn');
  t.equal(h.text(), before, 'nothing is written after the end line');
  t.equal(h.recorder.stop('record_stop').reason, 'record_stop', 'stopping again writes nothing');
  t.equal(h.text(), before);
  t.equal(h.stops.length, 1);
  parseEpisode(h.text(), '0.5.0'); // a record that stopped itself is whole: it replays
});

t.test('realtime: a hash line after the first frame past every 60th tick; a step’s own ticks add none', async (t) => {
  const h = harness({ mode: 'realtime', startTick: 50 });
  for (const tick of [55, 59, 61, 70, 119, 125, 179, 240]) {
    h.world.tick = tick;
    h.clock.afterFrame();
  }
  h.world.tick = 241;
  h.clock.endTick(); // a paused world's step: its command line and hash line cover it
  h.recorder.stop('record_stop');
  const hashes = parseEpisode(h.text(), '0.5.0').entries.map((entry) => entry.tick);
  t.same(hashes, [61, 125, 240]);
});

t.test('a world swap ends the record', async (t) => {
  const h = harness();
  h.command('spawn');
  h.clock.worldSwapped();
  t.ok(h.recorder.stopped);
  t.match(h.lines().at(-1), { end: 'world_swapped' });
  t.match(h.stops, [{ reason: 'world_swapped' }]);
  h.command('spawn');
  t.equal(h.lines().filter((line: Record<string, unknown>) => line.name === 'spawn').length, 1, 'nothing after it');
});

t.test('fileSink: write() takes the text and returns before it is on disk; close() resolves once every line is written, in order', async (t) => {
  const file = join(tempDir('gcb-sink-'), 'r.jsonl');
  const fd = openSync(file, 'wx', 0o600);
  const sink = fileSink(fd);
  for (let i = 0; i < 1000; i++) sink.write(`line ${i}\n`);
  // One write at a time, by libuv's threads: the next goes only when the last one's callback has run
  // on this thread's event loop, so until it turns, at most the first line can have reached the file.
  t.ok(['', 'line 0\n'].includes(readFileSync(file, 'utf8')), 'the writes wait for the event loop; the calls did not');
  t.equal(await sink.close(), null);
  const text = readFileSync(file, 'utf8');
  t.equal(text, Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join(''), 'every line, in order');
  sink.write('after the close\n');
  t.equal(await sink.close(), null, 'close() again: the same answer');
  t.equal(readFileSync(file, 'utf8'), text, 'nothing taken after the close');
  t.throws(() => fstatSync(fd), { code: 'EBADF' }, 'the file is closed');
});

t.test('fileSink: a write that fails ends the writing; close() resolves with its error, never rejects', async (t) => {
  const file = join(tempDir('gcb-sink-'), 'r.jsonl');
  writeFileSync(file, '');
  const readOnly = openSync(file, 'r');
  const sink = fileSink(readOnly);
  sink.write('cannot be written\n');
  sink.write('nor this\n');
  const error = await sink.close();
  t.match(error, { code: 'EBADF' }, 'the write error');
  t.equal(readFileSync(file, 'utf8'), '');
});
