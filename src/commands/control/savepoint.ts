import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { snapshotBytesOf } from '../../shared/snapshot-bytes.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'savepoint',
  category: 'control',
  description:
    'Keep the whole world in memory (tick and random state included) under a new id, for rewind. At most ' +
    '[Game] max_savepoints are held (16 by default); savepoint_drop frees one, and generate_world and load_world drop them all.',
  args: Type.Object(
    {
      label: Type.Optional(Type.String({ maxLength: LIMITS.savepointLabelMaxLength, description: 'a note kept with the savepoint and answered back' })),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({
    id: Type.Integer({ minimum: 1, description: 'the savepoint id: 1, 2, 3... in one bridge run' }),
    tick: Type.Integer(),
    hash: Type.String({ description: 'world_hash at the savepoint: rewind gives it back' }),
    bytes: Type.Integer({ description: 'the memory the savepoint holds' }),
    label: Type.Optional(Type.String()),
  }),
  permission: { all: ['control_world'] },
  binds: ['snapshot', 'restore', 'stateHash'],
  runsOnGameThread: true,
  frame: (env) => {
    const { game, args, savepoints: store } = env;
    store.checkRoom(); // before the snapshot: a refused savepoint costs no copy of the world
    const snapshot = game.snapshot();
    const held = store.add({
      tick: game.currentTick(),
      hash: game.stateHash(),
      bytes: snapshotBytesOf(snapshot, game.snapshotBytes),
      ...(args.label === undefined ? {} : { label: args.label }),
      snapshot,
    });
    const { snapshot: _kept, ...answer } = held;
    return answer;
  },
});
