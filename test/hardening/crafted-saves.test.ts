// decisions §11 (crafted saves): a save is decoded within bounds before anything is
// allocated for it, and anything out of bounds is 400 BAD_ARGS naming what is wrong, never a 500
// or "Maximum call stack". On v0.3 a 43 KiB save whose array table repeated one 32 MiB entry 16
// times grew the process by ~580 MiB before being refused, and a snapshot nested 200,000 deep was
// 500 GAME_CRASH with an absolute source path. The files are built here (test/hardening/save-craft.ts).
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { decodeSave, encodeSave, MAX_BODY_BYTES, MAX_SAVE_ARRAYS, SaveFormatError } from '../../src/game/save-format.ts';
import { generateWorld } from '../../src/game/index.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { REPO_ROOT } from '../helpers/paths.ts';
import { body, craft, takeApart, wrap } from './save-craft.ts';

const MiB = 1024 * 1024;
const real = encodeSave(generateWorld({ zonesX: 2, zonesY: 2, seed: 5 }) as SandboxSnapshot, false);
const { meta, data } = takeApart(real);
const withMeta = (change: (m: typeof meta) => void, compress = false, extra = new Uint8Array(0)) => {
  const m = structuredClone(meta);
  change(m);
  return craft({ json: JSON.stringify(m), data: Buffer.concat([data, extra]), compress });
};
const refusal = (bytes: Uint8Array): string => {
  try {
    decodeSave(bytes);
  } catch (err) {
    if (err instanceof SaveFormatError) return err.message;
    return `NOT A SaveFormatError: ${String(err)}`;
  }
  return 'accepted';
};

/** The table of the issue: `mib` MiB of zeros (a few KiB gzipped), one entry for all of it repeated 16 times. */
function repeatedEntry(mib: number): Uint8Array {
  const zeros = new Uint8Array(mib * MiB);
  const arrays = Array.from({ length: 16 }, () => ({ type: 'Uint8Array', offset: 0, length: mib * MiB }));
  return craft({ json: JSON.stringify({ snapshot: { $ta: 0 }, arrays }), data: zeros, compress: true });
}

/** A snapshot nested 200,000 arrays deep. */
function deeplyNested(): Uint8Array {
  return craft({ json: `{"snapshot":${'['.repeat(200_000)}${']'.repeat(200_000)},"arrays":[]}` });
}

t.test('the decoder refuses, naming what is wrong', async (t) => {
  t.equal(refusal(real), 'accepted', 'the real save itself decodes');
  t.equal(refusal(withMeta(() => {}, true)), 'accepted', 'and so does the same taken apart and put back together');
  const cases: Array<[string, () => Uint8Array, RegExp]> = [
    ['one 32 MiB entry repeated 16 times (the issue)', () => repeatedEntry(32), /the data section has 33554432 bytes, more than the largest world's arrays/],
    ['one 16 MiB entry repeated 16 times', () => repeatedEntry(16), /array \d+ overlaps array \d+/],
    ['entries that share bytes', () => withMeta((m) => (m.arrays[1]!.offset = m.arrays[0]!.offset)), /overlaps/],
    ['an entry past the end of the data', () => withMeta((m) => (m.arrays[2]!.length = data.length * 2)), /array 2 runs past the end/],
    ['an offset of 2^60', () => withMeta((m) => (m.arrays[0]!.offset = 2 ** 60)), /array 0 has a bad offset or length/],
    ['a negative length', () => withMeta((m) => (m.arrays[0]!.length = -1)), /array 0 has a bad offset or length/],
    ['a fractional offset', () => withMeta((m) => (m.arrays[0]!.offset = 0.5)), /array 0 has a bad offset or length/],
    ['an unknown array type', () => withMeta((m) => (m.arrays[0]!.type = 'BigInt64Array')), /array 0 has an unknown type/],
    [
      'more entries than a world has',
      () => withMeta((m) => m.arrays.push(...Array.from({ length: MAX_SAVE_ARRAYS }, () => ({ type: 'Uint8Array', offset: 0, length: 0 })))),
      /entries, more than a world has/,
    ],
    ['one array referenced twice', () => withMeta((m) => ((m.snapshot as any).tiles.top = (m.snapshot as any).tiles.type)), /referenced more than once/],
    ['a table entry nothing refers to', () => withMeta((m) => ((m.snapshot as any).rng = [1, 2, 3, 4])), /array \d+ is in the table but nothing refers to it/],
    ['a reference to a missing array', () => withMeta((m) => ((m.snapshot as any).rng = { $ta: 999 })), /missing array 999/],
    ['200,000 nested arrays', deeplyNested, /nested deeper than 64 levels/],
    ['nesting of 65 objects', () => craft({ json: `{"snapshot":${'{"a":'.repeat(65)}1${'}'.repeat(65)},"arrays":[]}` }), /nested deeper than 64 levels/],
    ['a header claiming 24 × 128 MiB', () => wrap(body('{}'), { claimLength: 24 * 128 * MiB }), /claims \d+ bytes, more than the largest world needs/],
    [
      'a header claiming one byte more than the largest world',
      () => wrap(body('{}'), { claimLength: MAX_BODY_BYTES + 1 }),
      /more than the largest world needs/,
    ],
    [
      'gzip that inflates past what the header claims',
      () => wrap(new Uint8Array(MiB), { compress: true, payload: gzipSync(new Uint8Array(64 * MiB)) }),
      /inflates past the 1048576 bytes its header claims/,
    ],
    ['metadata longer than the body', () => wrap(new Uint8Array([255, 255, 255, 127, 0, 0, 0, 0])), /metadata runs past the end/],
    ['metadata that is not UTF-8', () => wrap(body('{}').map((b, i) => (i === 4 ? 0xff : b))), /not valid UTF-8/],
    [
      'a fireList longer than the map',
      () =>
        withMeta(
          (m) => Object.assign(m.arrays[(m.snapshot as any).fireList.$ta]!, { offset: data.length, length: 128 * 128 + 1 }),
          false,
          new Uint8Array(4 * (128 * 128 + 1)),
        ),
      /fireList has 16385 entries, more than the 16384 tiles/,
    ],
  ];
  for (const [what, make, expected] of cases) {
    t.match(refusal(make()), expected, what);
  }
});

t.test('over HTTP: 400 BAD_ARGS naming the problem, no 500, no stack overflow, bounded memory', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const load = (bytes: Uint8Array) => b.cmd('load_world', { bytes_b64: Buffer.from(bytes).toString('base64') });

  // Warm up first: the pool workers load the game module and the catalogue on their first tasks.
  for (let n = 0; n < 3; n++) t.equal((await load(real)).status, 200, 'a real save loads');
  const repeated = repeatedEntry(16);
  t.ok(repeated.length < 64 * 1024, `the repeated-entry save is ${Math.round(repeated.length / 1024)} KiB`);
  // RSS of this process (the pool worker decoding it is a thread of it), sampled while it is decoded.
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  const answer = await load(repeated);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  t.equal(answer.status, 400);
  t.match(answer.body.error, { code: 'BAD_ARGS', message: /array \d+ overlaps array \d+/ });
  const grown = (peak - before) / MiB;
  // One 16 MiB body inflated and refused; v0.3 made 16 copies of it (256 MiB).
  t.ok(grown < 128, `RSS grew by ${grown.toFixed(0)} MiB at most while decoding (16 copies would be 256)`);

  const nested = await load(deeplyNested());
  t.equal(nested.status, 400);
  t.match(nested.body.error, { code: 'BAD_ARGS', message: /nested deeper than 64 levels/ });
  t.notMatch(JSON.stringify(nested.body), /Maximum call stack/);

  const issue = await load(repeatedEntry(32));
  t.match(issue, { status: 400, body: { error: { code: 'BAD_ARGS', message: /the data section has \d+ bytes/ } } }, "the issue's 16 × 32 MiB");
  const claimed = await load(wrap(body('{}'), { claimLength: 24 * 128 * MiB }));
  t.match(claimed, { status: 400, body: { error: { code: 'BAD_ARGS', message: /more than the largest world needs/ } } });

  for (const reply of [answer, nested, issue, claimed]) t.notMatch(JSON.stringify(reply.body), REPO_ROOT, 'no absolute path in the answer');
  t.equal((await b.cmd('get_ui_state')).body.result.world_loading, false, 'no refused save leaves the world marked as loading');
  t.equal((await b.cmd('load_world', { bytes_b64: Buffer.from(real).toString('base64') })).status, 200, 'a real save still loads');
});
