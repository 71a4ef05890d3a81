// decisions §8 over real HTTP: a batch's items run back to back in one frame with nothing between
// them; a frame runs at most 32 entries and 256 items, and a batch never splits; past the queue
// deadline a batch runs nothing.
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import type { Mark } from '../fixtures/batch-commands.ts';
import { fixture } from '../helpers/paths.ts';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';

t.setTimeout(120_000); // real bridges on a machine that may be loaded

const BATCH_COMMANDS = fixture('batch-commands.ts');
const mark = (tag: string) => ({ name: 'mark', args: { tag } });

t.test('queued behind a stalled frame: no batch interleaves or splits, no frame runs more than 32 entries or 256 items', async (t) => {
  const configDir = tempDir();
  writeConfig(configDir, { maxConcurrent: 32 });
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, { configDir, commandModules: [BATCH_COMMANDS], gameOptions: { counters, stallOnPauseMs: 4000 } });
  const stall = b.cmd('pause');
  await until(() => Atomics.load(view, COUNTER.pause) === 1, 10_000, 'the stall to begin');

  const BATCHES = 10; // 320 items: more than one frame may hold
  const SINGLES = 12;
  const batches = Array.from({ length: BATCHES }, (_, i) => b.cmd('batch', { commands: Array.from({ length: 32 }, (_, j) => mark(`b${i}-${j}`)) }));
  const singles = Array.from({ length: SINGLES }, (_, k) => b.cmd('mark', { tag: `s${k}` }));
  let allQueued = true;
  try {
    await until(() => b.bridge.stats().queued === BATCHES + SINGLES, 3500, 'every request queued during the stall');
  } catch {
    allQueued = false; // a very loaded machine: the order rules still hold, the split may not show
  }
  const answers = await Promise.all([...batches, ...singles]);
  t.same(
    answers.map((a) => a.status),
    Array(BATCHES + SINGLES).fill(200),
  );
  t.equal((await stall).status, 200);

  const marks = (await b.cmd('marks')).body.result as Mark[];
  t.equal(marks.length, BATCHES * 32 + SINGLES);
  for (let i = 0; i < BATCHES; i++) {
    const at = marks.findIndex((m) => m.tag === `b${i}-0`);
    const run = marks.slice(at, at + 32);
    t.same(
      run.map((m) => m.tag),
      Array.from({ length: 32 }, (_, j) => `b${i}-${j}`),
      `batch ${i}: its 32 items back to back, nothing between them`,
    );
    t.equal(new Set(run.map((m) => m.frame)).size, 1, `batch ${i}: one frame`);
  }
  const perFrame = new Map<number, { items: number; entries: Set<string> }>();
  for (const m of marks) {
    const frame = perFrame.get(m.frame) ?? { items: 0, entries: new Set<string>() };
    frame.items++;
    frame.entries.add(m.tag.startsWith('b') ? m.tag.split('-')[0]! : m.tag);
    perFrame.set(m.frame, frame);
  }
  for (const [frame, { items, entries }] of perFrame) {
    t.ok(items <= 256, `frame ${frame}: ${items} items`);
    t.ok(entries.size <= 32, `frame ${frame}: ${entries.size} entries`);
  }
  if (allQueued) t.ok(perFrame.size >= 2, `320 queued items took ${perFrame.size} frames`);
  const stats = b.bridge.stats().frames;
  t.ok(stats.items >= BATCHES * 32 + SINGLES, `shared frame statistics count items (${stats.items})`);
});

t.test('past the queue deadline a batch runs nothing (504), and a keyed retry then runs it', async (t) => {
  const counters = new SharedArrayBuffer(32);
  const view = new Int32Array(counters);
  const b = await startTestBridge(t, {
    commandModules: [BATCH_COMMANDS],
    gameOptions: { counters, stallOnPauseMs: 2000 },
    timings: { queueDeadlineMs: 400 },
  });
  const stall = b.cmd('pause');
  await until(() => Atomics.load(view, COUNTER.pause) === 1, 10_000, 'the stall to begin');
  const key = { 'idempotency-key': 'late-batch-1' };
  const late = await b.cmd('batch', { commands: [mark('late-1'), mark('late-2')] }, { headers: key });
  t.equal(late.status, 504);
  t.equal(late.body.error.code, 'MAIN_THREAD_TIMEOUT');
  await stall;
  t.same((await b.cmd('marks')).body.result, [], 'no item of the dropped batch ran');
  t.equal(b.bridge.stats().slotsInUse, 0);

  const retry = await b.cmd('batch', { commands: [mark('late-1'), mark('late-2')] }, { headers: key });
  t.equal(retry.status, 200, 'a 504 past the queue deadline is not kept: the retry runs');
  t.equal(retry.headers.get('idempotent-replayed'), null);
  t.same(
    (await b.cmd('marks')).body.result.map((m: Mark) => m.tag),
    ['late-1', 'late-2'],
  );
});
