// decisions §15, what `gcb replay` will run, on parsed records: the commands a record may hold (the
// action commands and the control commands that move or hold the world), reads inside a batch, the
// ticks a replay steps in all (a realtime record's frames and a rewind's way back included), and
// the header's start world.
import t from 'tap';
import { REPLAYED_COMMANDS, replayRefusal, startWorldArgs, ticksInAll } from '../../src/cli/replay-checks.ts';
import type { Episode, EpisodeEntry } from '../../src/shared/episode-format.ts';

const HASH = '00000000000000aa';

function episode(entries: Array<Partial<EpisodeEntry> & { tick: number }>, header: Partial<Episode['header']> = {}, endTick = 0): Episode {
  return {
    header: { format: 1, mod_version: '0.5.0', game: 'g', seed: 1, width: 128, height: 128, tick: 0, hash: HASH, ...header },
    entries: entries.map((entry) =>
      'name' in entry
        ? ({ kind: 'command', order: 0, agent: 'a', args: {}, code: null, ...entry } as EpisodeEntry)
        : ({ kind: 'hash', hash: HASH, ...entry } as EpisodeEntry),
    ),
    end: { tick: endTick, hash: HASH, end: 'record_stop', lines: 2 },
  };
}

t.test('a record holds the action commands and the control commands that move or hold the world, nothing else', async (t) => {
  t.same([...REPLAYED_COMMANDS].sort(), [
    'batch',
    'invoke_power',
    'paint_tile',
    'pause',
    'resume',
    'rewind',
    'savepoint',
    'savepoint_drop',
    'set_speed',
    'spawn',
    'step',
  ]);
  for (const name of REPLAYED_COMMANDS) t.equal(replayRefusal(episode([{ tick: 0, name }]), 10), null, `${name} is replayed`);
  t.equal(
    replayRefusal(episode([{ tick: 0, name: 'dismiss_window' }]), 10),
    'line 2 runs dismiss_window, which no record holds: gcb replay runs only invoke_power, spawn, paint_tile, batch, pause, resume, set_speed, step, savepoint, rewind, savepoint_drop (and reads inside a batch)',
  );
  t.match(
    replayRefusal(
      episode([
        { tick: 0, name: 'spawn' },
        { tick: 0, name: 'nonsense' },
      ]),
      10,
    ),
    /^line 3 runs nonsense/,
  );
});

t.test('a batch may read too; its other items are judged as if they came alone', async (t) => {
  const batch = (commands: unknown) => episode([{ tick: 0, name: 'batch', args: { commands } }]);
  t.equal(replayRefusal(batch([{ name: 'get_world_state' }, { name: 'list_actors' }, { name: 'spawn', args: {} }, { name: 'pause' }]), 10), null);
  t.match(replayRefusal(batch([{ name: 'spawn' }, { name: 'send_message' }]), 10), /^line 2: batch's commands\[1\] runs send_message, which no record holds/);
  t.equal(replayRefusal(batch('not a list'), 10), null, 'a batch of no list is left to the bridge, which refuses it');
  t.equal(replayRefusal(episode([{ tick: 0, name: 'batch', args: null }]), 10), null, 'and one with no args');
  t.equal(
    replayRefusal(episode([{ tick: 0, name: 'spawn', args: { commands: [{ name: 'save_world' }] } }]), 10),
    null,
    'only a batch has items: another command’s args named commands are only args',
  );
  t.equal(replayRefusal(batch([null, 3, { name: 7 }]), 10), null, 'and so are items with no name');
});

t.test('ticks in all: the header tick, each step, every line ahead of where the lines reached, the way back after a rewind', async (t) => {
  t.equal(ticksInAll(episode([], { tick: 0 }, 0)), 0);
  t.equal(ticksInAll(episode([], { tick: 30 }, 30)), 30, 'the start world is stepped to the header tick');
  t.equal(ticksInAll(episode([{ tick: 30, name: 'step', args: { ticks: 100 } }, { tick: 130 }], { tick: 30 }, 130)), 130);
  t.equal(ticksInAll(episode([{ tick: 0 }, { tick: 60 }, { tick: 125, name: 'spawn' }], {}, 200)), 200, 'a realtime record: its frames between the lines');
  t.equal(
    ticksInAll(
      episode(
        [
          { tick: 0, name: 'savepoint' },
          { tick: 0, name: 'step', args: { ticks: 50 } },
          { tick: 50 },
          { tick: 50, name: 'rewind', args: { id: 1 } },
          { tick: 0 },
          { tick: 0, name: 'step', args: { ticks: 50 } },
          { tick: 50 },
        ],
        {},
        50,
      ),
    ),
    100,
    'after a rewind the steps count again',
  );
  t.equal(
    ticksInAll(
      episode(
        [
          { tick: 0, name: 'step', args: { ticks: 'many' } },
          { tick: 0, name: 'step', args: { ticks: '5' } },
          { tick: 0, name: 'step', args: { ticks: -5 } },
          { tick: 0, name: 'step', args: null },
        ],
        {},
        0,
      ),
    ),
    0,
    'a step that names no ticks runs none (the bridge refuses it)',
  );
  t.equal(
    ticksInAll(
      episode(
        [
          { tick: 0, name: 'step', args: { ticks: 100 } },
          { tick: 0, name: 'step', args: { ticks: 100 } },
          { tick: 0, name: 'spawn', args: { ticks: 50 } },
        ],
        {},
        0,
      ),
    ),
    200,
    'steps with no hash line after them count all the same, and only steps count their ticks',
  );
  t.equal(replayRefusal(episode([{ tick: 0, name: 'step', args: { ticks: 100 } }], {}, 100), 100), null, 'exactly the bound is allowed');
  t.match(
    replayRefusal(episode([{ tick: 0, name: 'step', args: { ticks: 100 } }], {}, 101), 100),
    /^the record steps 101 ticks in all .*above --max-ticks 100/,
  );
});

t.test("the header's start world: generate_world's args, or why there is none", async (t) => {
  t.same(startWorldArgs(episode([], { seed: 9, width: 256, height: 192 })), { zone_x: 4, zone_y: 3, seed: 9 });
  t.same(startWorldArgs(episode([], { seed: 2147483647, width: 1024, height: 1024 })), { zone_x: 16, zone_y: 16, seed: 2147483647 });
  t.same(startWorldArgs(episode([], { seed: 0, width: 128, height: 128 })), { zone_x: 2, zone_y: 2, seed: 0 });
  t.match(startWorldArgs(episode([], { seed: 2147483648 })), /seed 2147483648 is not one/);
  t.match(startWorldArgs(episode([], { width: 64 })), /^the header's width 64 is no size generate_world makes \(128 to 1024 tiles, in steps of 64\)$/);
  t.match(startWorldArgs(episode([], { height: 1088 })), /^the header's height 1088 is no size/);
  t.match(startWorldArgs(episode([], { width: null })), /names no seed and size/);
  t.match(startWorldArgs(episode([], { height: null })), /names no seed and size/);
  t.equal(replayRefusal(episode([], { tick: 1_000_000 }, 1_000_000), 10_000_000), null, 'a header at tick 1,000,000 is allowed');
  t.match(
    replayRefusal(episode([], { seed: -1 }), 10),
    /^the header's seed -1 is not one generate_world takes/,
    'a start world that cannot be made refuses the record',
  );
  t.match(replayRefusal(episode([], { tick: 1_000_001 }, 1_000_001), 10_000_000), /^the header's tick 1000001 is above 1000000/);
});
