// decisions §11: load_world with mutated real saves. A real save of a small world is
// mutated by fast-check (bytes flipped, cut, spliced or appended; the body changed with its header
// fixed up so the checksum passes; the metadata changed as a tree: numbers out of range, keys gone,
// array-table entries moved, grown, shared or added, references swapped, nesting) and sent as
// bytes_b64. Every answer is 200 or a 4xx (never a 500), nothing a decoded save holds is refused
// later by the swap frame, the bridge's memory stays bounded, and it serves normally afterwards.
// GCB_SAVE_FUZZ_CASES and GCB_SAVE_FUZZ_SEED scale and replay it (docs/reliability.md has a long run).
import { appendFileSync } from 'node:fs';

import fc from 'fast-check';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { generateWorld } from '../../src/game/index.ts';
import { encodeSave } from '../../src/game/save-format.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { body, takeApart, wrap } from './save-craft.ts';

const CASES = Number(process.env.GCB_SAVE_FUZZ_CASES ?? 60);
const SEED = Number(process.env.GCB_SAVE_FUZZ_SEED ?? Date.now() % 2 ** 31);
const MiB = 1024 * 1024;

type Tree = unknown;

/** Paths to every leaf and node of a JSON tree. */
function paths(tree: Tree, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (Array.isArray(tree)) tree.forEach((v, i) => paths(v, [...at, i], out));
  else if (tree && typeof tree === 'object') for (const [k, v] of Object.entries(tree)) paths(v, [...at, k], out);
  return out;
}
/** Sets the value at `at`; nothing when an earlier edit replaced or removed a node on the way. */
function setAt(tree: Tree, at: Array<string | number>, value: unknown): Tree {
  if (at.length === 0) return value;
  const parent = getAt(tree, at.slice(0, -1));
  // Paths are taken from the unedited save (seed 363991078 set a node to 65536, then a field under it).
  if (parent !== null && typeof parent === 'object') (parent as Record<string | number, unknown>)[at.at(-1)!] = value;
  return tree;
}
function getAt(tree: Tree, at: Array<string | number>): unknown {
  let node = tree as Record<string | number, unknown>;
  for (const key of at) node = node?.[key] as Record<string | number, unknown>;
  return node;
}

const WEIRD = [-1, 0, 1, 7, 255, 65_536, 2 ** 31, 2 ** 32 + 8, 2 ** 53, 1e308, -1e308, 0.5, null, true, 'x', '', [], {}, { $ta: 0 }, { $ta: 1e9 }];

t.test(`load_world with ${CASES} mutated real saves (seed ${SEED})`, async (t) => {
  // The saves are made and mutated before the bridge starts: generating every case takes a while,
  // and an idle keep-alive socket closed by the bridge meanwhile would fail the first request.
  const world = generateWorld({ zonesX: 2, zonesY: 2, seed: 3 }) as SandboxSnapshot;
  const plain = encodeSave(world, false);
  const packed = encodeSave(world, true);
  const { meta, data } = takeApart(plain);
  const rawBody = plain.subarray(16);
  const treePaths = paths(meta);

  const byteEdits = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 });
  const mutation = fc.oneof(
    // The file as bytes: flipped, cut, grown, a region repeated.
    fc
      .record({
        kind: fc.constant('bytes'),
        from: fc.constantFrom(plain, packed),
        edits: byteEdits,
        cut: fc.option(fc.nat(), { nil: undefined }),
        extra: fc.option(fc.uint8Array({ maxLength: 64 }), { nil: undefined }),
      })
      .map((m) => {
        let bytes = new Uint8Array(m.from);
        for (const [at, value] of m.edits) bytes[at % bytes.length] = value;
        if (m.cut !== undefined) bytes = bytes.subarray(0, m.cut % bytes.length);
        if (m.extra) bytes = new Uint8Array(Buffer.concat([bytes, m.extra]));
        return { what: 'bytes', bytes };
      }),
    // The body's bytes, with the header fixed up so the checksum and length pass.
    fc.record({ edits: byteEdits, compress: fc.boolean(), inJson: fc.boolean() }).map((m) => {
      const changed = new Uint8Array(rawBody);
      const jsonEnd = 4 + new DataView(changed.buffer).getUint32(0, true);
      for (const [at, value] of m.edits) changed[m.inJson ? 4 + (at % (jsonEnd - 4)) : at % changed.length] = value;
      return { what: 'body', bytes: wrap(changed, { compress: m.compress }) };
    }),
    // The metadata as a tree: 1 to 4 changes, then put back together around the data.
    fc
      .record({
        edits: fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('set'), at: fc.nat(), value: fc.constantFrom(...WEIRD) }),
            fc.record({ op: fc.constant('delete'), at: fc.nat() }),
            fc.record({
              op: fc.constant('table'),
              entry: fc.nat(),
              field: fc.constantFrom('offset', 'length', 'type'),
              value: fc.constantFrom(...WEIRD, 'Float64Array', 'Uint8Array', data.length, data.length * 4),
            }),
            fc.record({ op: fc.constant('share'), from: fc.nat(), to: fc.nat() }),
            fc.record({ op: fc.constant('nest'), at: fc.nat(), depth: fc.constantFrom(63, 64, 65, 1000, 100_000) }),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        compress: fc.boolean(),
        extra: fc.constantFrom(0, 8, 4096),
      })
      .map((m) => {
        let tree = structuredClone(meta) as Tree;
        let nested: { at: Array<string | number>; depth: number } | null = null;
        for (const edit of m.edits) {
          const at = treePaths[('at' in edit ? edit.at : 0) % treePaths.length]!;
          if (edit.op === 'set') tree = setAt(tree, at, structuredClone(edit.value));
          else if (edit.op === 'delete' && at.length > 0) {
            const parent = getAt(tree, at.slice(0, -1));
            if (Array.isArray(parent)) parent.splice(Number(at.at(-1)), 1);
            else if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[at.at(-1)!];
          } else if (edit.op === 'table') {
            const table = (tree as typeof meta).arrays;
            // An earlier edit may have made the entry a number or null: only an object takes a field.
            const entry: unknown = Array.isArray(table) && table.length > 0 ? table[edit.entry % table.length] : null;
            if (entry !== null && typeof entry === 'object') (entry as Record<string, unknown>)[edit.field] = edit.value;
          } else if (edit.op === 'share') {
            const table = (tree as typeof meta).arrays;
            if (Array.isArray(table) && table.length > 1) table[edit.to % table.length] = structuredClone(table[edit.from % table.length]!);
          } else if (edit.op === 'nest') nested = { at, depth: edit.depth };
        }
        let json = JSON.stringify(tree) ?? 'null';
        if (nested) {
          // Deep nesting is written as text (JSON.stringify would recurse as deep).
          const marker = '"__NEST__"';
          json = JSON.stringify(setAt(tree, nested.at, '__NEST__')) ?? marker;
          json = json.replace(marker, `${'['.repeat(nested.depth)}${']'.repeat(nested.depth)}`);
        }
        return { what: 'meta', bytes: wrap(body(json, new Uint8Array(Buffer.concat([data, new Uint8Array(m.extra)]))), { compress: m.compress }) };
      }),
  );

  const cases = fc.sample(mutation, { numRuns: CASES, seed: SEED });
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  t.equal((await b.cmd('load_world', { bytes_b64: Buffer.from(plain).toString('base64') })).status, 200, 'the real save loads');
  const statuses = new Map<string, number>();
  const problems: string[] = [];
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  t.teardown(() => clearInterval(sampler));
  for (const [n, c] of cases.entries()) {
    if (process.env.GCB_SAVE_FUZZ_TRACE) appendFileSync(process.env.GCB_SAVE_FUZZ_TRACE, `case ${n} ${c.what} ${c.bytes.length}\n`);
    const reply = await b.cmd('load_world', { bytes_b64: Buffer.from(c.bytes).toString('base64') });
    const key = reply.status === 200 ? '200' : `${reply.status} ${reply.body.error.code}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const text = JSON.stringify(reply.body);
    if (reply.status >= 500) problems.push(`case ${n} (${c.what}): ${reply.status} ${text.slice(0, 300)}`);
    if (/Maximum call stack|\/work\/|\/tmp\//.test(text)) problems.push(`case ${n} (${c.what}): ${text.slice(0, 300)}`);
  }
  clearInterval(sampler);
  const grownMiB = (peak - before) / MiB;
  t.comment(`answers: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; RSS ${Math.round(before / MiB)} → peak ${Math.round(peak / MiB)} MiB`);
  t.same(problems, [], 'no 5xx, no stack overflow, no machine path in any answer');
  t.ok(grownMiB < 512, `RSS grew by ${grownMiB.toFixed(0)} MiB at most (bounded)`);
  const refusedLater = b.logs.filter((line) => /queued load_world\.install failed/.test(String(line.msg)));
  t.same(
    refusedLater.map((line) => line.msg),
    [],
    'every save the decoder accepted was installed by the swap frame',
  );
  t.equal((await b.cmd('load_world', { bytes_b64: Buffer.from(packed).toString('base64') })).status, 200, 'the real save still loads');
  t.equal((await b.cmd('get_ui_state')).body.result.world_loading, false);
  t.equal(b.bridge.stats().slotsInUse, 0);
});
