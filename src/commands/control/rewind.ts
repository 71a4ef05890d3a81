import { Type } from '@sinclair/typebox';
import { savepointsOf } from '../shared/savepoints.ts';
import { leaveTimeline } from '../shared/world-swap.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'rewind',
  category: 'control',
  description:
    'Put the world back exactly as it was at savepoint `id`: tick, random state and every record, so its hash is the ' +
    "savepoint's and the same commands give the same worlds again. The savepoint stays for another rewind. Pulsed " +
    'invoke_power runs in flight end (stopped "world_changed"), as on a world swap. Emits rewound.',
  args: Type.Object({ id: Type.Integer({ minimum: 1, description: 'a savepoint id' }) }, { additionalProperties: false }),
  result: Type.Object({
    id: Type.Integer(),
    from_tick: Type.Integer({ description: 'the tick before the rewind' }),
    tick: Type.Integer({ description: 'the tick now: the one of the savepoint' }),
    hash: Type.String({ description: 'world_hash now: the one of the savepoint' }),
  }),
  permission: { all: ['control_world'] },
  binds: ['snapshot', 'restore', 'stateHash'],
  runsOnGameThread: true,
  frame: (env) => {
    const { game, args, emit, shared } = env;
    const held = savepointsOf(env).get(args.id); // an unknown id is refused before anything changes
    const fromTick = game.currentTick();
    game.restore(held.snapshot);
    // decisions §15: the runs of the timeline left behind pulse no more.
    leaveTimeline(shared);
    const tick = game.currentTick();
    emit('rewound', { from_tick: fromTick, to_tick: tick, id: held.id });
    return { id: held.id, from_tick: fromTick, tick, hash: game.stateHash() };
  },
});
