// The kinds of field the state table is made of, where the table's own cases (test/game/state.test.ts)
// do not reach: a field added after saves were made (`absent`), which those saves lack and must
// still load with, and the save file's names for renamed record fields, read from untrusted data.
import t from 'tap';
import { records, scalar, SnapshotError, type SaveData } from '../../src/game/state-kinds.ts';
import { createWorld } from '../../src/game/world.ts';

const w = createWorld(128, 128, 1);

t.test('a number added later: a save without it loads with its value for then; a bad one is still refused', (t) => {
  const budget = scalar('counters.budget', { min: 0, max: 100, absent: 40 });
  const older: SaveData = { counters: { nextUid: 1 } };
  budget.check!(older);
  t.equal(budget.load(older, 0, w), 40, 'absent: its value for then');
  t.equal(budget.load({ counters: { budget: 7 } }, 0, w), 7, 'present: its own');
  for (const bad of [101, null, 'x']) {
    let refused: unknown;
    try {
      budget.check!({ counters: { budget: bad } });
    } catch (err) {
      refused = err;
    }
    t.ok(refused instanceof SnapshotError && refused.message === 'counters.budget must be an integer in 0..100', `refused: ${String(bad)}`);
  }
  const always = scalar('tick', { min: 0, max: 10 });
  t.throws(() => always.check!({}), { message: 'tick must be an integer in 0..10' }, 'without `absent`, a save must hold it');
  t.end();
});

interface Thing {
  id: number;
  size: number;
  tags: number[];
  cost: number;
}

t.test('a record field added later: records without it load with its value for then', (t) => {
  const things = records<'things', Thing>(
    'things',
    { id: 'num', size: { kind: 'num', inFile: 'bulk' }, tags: 'kingdomIds', cost: { kind: 'num', absent: 3 } },
    10,
  );
  const older = { kingdoms: [{}, {}], things: [{ id: 1, size: 2, tags: [2] }] };
  things.check!(older);
  const loaded = things.load(older, [], w);
  t.same(loaded, [{ id: 1, size: 2, tags: [2], cost: 3 }]);
  t.not(loaded[0]!.tags, older.things[0]!.tags, 'a copy');
  t.throws(
    () => things.check!({ kingdoms: [], things: [{ id: 1, tags: [] }] }),
    { message: 'things[0].size must be a number' },
    'a field without `absent` is required',
  );
  t.end();
});

t.test("a save file's names: written for renamed fields, read back, and untrusted data left for the checks", (t) => {
  const things = records<'things', Thing>('things', { id: 'num', size: { kind: 'num', inFile: 'bulk' }, tags: 'kingdomIds', cost: 'num' }, 10);
  const file: Record<string, unknown> = { things: [{ id: 1, size: 2, tags: [], cost: 0 }] };
  things.inFile.write(file);
  t.same(file.things, [{ id: 1, bulk: 2, tags: [], cost: 0 }], 'the file names it');
  things.inFile.read(file);
  t.same(file.things, [{ id: 1, size: 2, tags: [], cost: 0 }], 'and the code reads its own name back');
  for (const odd of [null, 'text', { id: 1 }, [null, 5, 'x']]) {
    const data: Record<string, unknown> = { things: odd };
    things.inFile.read(data);
    t.same(data.things, odd, `left as it is: ${JSON.stringify(odd)}`);
  }
  t.end();
});
