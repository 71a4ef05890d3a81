// decisions §12: the savepoint store of the game thread. Ids count up from 1 in shared memory (a
// restarted game thread, with a fresh store, goes on counting); at most `limit` are held, and one more
// is GAME_REJECTED naming the limit and savepoint_drop; an unknown id is GAME_REJECTED naming the known
// ones; a world swap on the clock empties the store.
import t from 'tap';
import { LIMITS } from '../../src/limits.ts';
import { createSavepointStore, SavepointStore } from '../../src/commands/shared/savepoints.ts';
import { createWorldClock } from '../../src/dispatch/world-clock.ts';
import { createSharedState } from '../../src/shared/layout.ts';

const point = (tick: number) => ({ tick, hash: `${tick}`.padStart(16, '0'), bytes: 10, snapshot: { tick } });

t.test('ids count up from 1 and go on across stores of one bridge (shared memory)', async (t) => {
  const shared = createSharedState();
  const first = new SavepointStore(4, shared.control);
  t.equal(first.add(point(1)).id, 1);
  t.equal(first.add(point(2)).id, 2);
  const afterRestart = new SavepointStore(4, shared.control);
  t.equal(afterRestart.add(point(3)).id, 3, 'a restarted game thread never hands out an id seen before');
  t.equal(afterRestart.size, 1);
});

t.test('the limit: one more is refused naming the limit, savepoint_drop and the held ids; dropping one makes room', async (t) => {
  const store = new SavepointStore(2, createSharedState().control);
  store.add(point(1));
  store.add(point(2));
  t.throws(() => store.checkRoom(), {
    code: 'GAME_REJECTED',
    message: /2 savepoints are held, the most \[Game\] max_savepoints allows; drop one with savepoint_drop first \(known savepoints: 1, 2\)/,
  });
  t.throws(() => store.add(point(3)), { code: 'GAME_REJECTED' });
  t.equal(store.size, 2, 'nothing was added');
  store.drop(1);
  t.equal(store.add(point(3)).id, 3, 'ids are never reused');
});

t.test('an unknown or dropped id is refused naming the known ones', async (t) => {
  const store = new SavepointStore(16, createSharedState().control);
  t.throws(() => store.get(1), { code: 'GAME_REJECTED', message: /^no savepoint 1 \(known savepoints: none\)/ });
  store.add(point(5));
  store.add(point(6));
  store.drop(2);
  t.throws(() => store.get(2), {
    code: 'GAME_REJECTED',
    message: /^no savepoint 2 \(known savepoints: 1\); savepoint_drop, generate_world and load_world drop savepoints$/,
  });
  t.throws(() => store.drop(2), { code: 'GAME_REJECTED', message: /known savepoints: 1/ });
  t.same(store.get(1).snapshot, { tick: 5 });
});

t.test("a game thread's store: its bound, emptied by its clock's world swap", async (t) => {
  const shared = createSharedState();
  const clock = createWorldClock({ mode: 'lockstep', currentTick: () => 0, closeTick: () => 0 });
  const store = createSavepointStore(clock, shared.control, 3);
  t.equal(store.limit, 3, '[Game] max_savepoints');
  t.equal(createSavepointStore(clock, shared.control).limit, LIMITS.maxSavepointsDefault, 'by default');
  store.add(point(1));
  clock.worldSwapped();
  t.equal(store.size, 0, 'a different world: its savepoints are gone');
});
