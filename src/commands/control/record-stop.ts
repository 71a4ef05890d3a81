import { Type } from '@sinclair/typebox';
import { describeException, errorOf, gameRejected } from '../../errors/bridge-error.ts';
import { gameCrashFailure } from '../../errors/failures.ts';
import { recordHolderOf } from '../shared/recorder.ts';
import { NoArgs, defineCommand } from '../define.ts';

export default defineCommand({
  name: 'record_stop',
  category: 'control',
  description:
    'End the running record: its end line (tick and world_hash now) is written and the file closed; the answer comes ' +
    'once the file holds every line. Emits record_stopped.',
  args: NoArgs,
  result: Type.Object({
    name: Type.String(),
    path: Type.String({ description: 'episodes/<name>.jsonl, relative to the config dir' }),
    lines: Type.Integer({ description: 'lines in the file, header and end line included' }),
    bytes: Type.Integer(),
    tick: Type.Integer({ description: 'the tick the record ends at' }),
    hash: Type.String({ description: 'world_hash at the end' }),
  }),
  permission: { all: ['control_world'] },
  binds: ['stateHash'],
  runsOnGameThread: true,
  // A batch is one line of the record: a record_stop inside it would end the record it is part of.
  batchRefusal: () => 'record_stop ends the record a batch would be a line of: send it on its own',
  frame: ({ clock }) => {
    const holder = recordHolderOf(clock);
    const running = holder.current;
    if (running === null || running.stopped) throw gameRejected('no record is running: record_start { name } starts one', 'NotRecording');
    holder.current = null;
    const { name, path, lines, bytes, tick, hash } = running.stop('record_stop');
    // decisions §15: the lines are written off the game thread; the answer waits for them, the frame does not.
    return running.closed!.then((error) => {
      if (error !== null) {
        throw errorOf(gameCrashFailure(`${path} could not be written (${error.message}); it holds what was written before`, describeException(error)));
      }
      return { name, path, lines, bytes, tick, hash };
    });
  },
});
