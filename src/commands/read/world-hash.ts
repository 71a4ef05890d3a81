import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'world_hash',
  category: 'read',
  description:
    'A 64-bit digest (16 lowercase hex) of the canonical world state: tick, random state, tiles, actors, kingdoms, ' +
    'cities, laws, speed and pause. Equal states give equal hashes in any process on any machine; reading it changes nothing.',
  args: NoArgs,
  result: Type.Object({ tick: Type.Integer(), hash: Type.String({ pattern: '^[0-9a-f]{16}$' }) }),
  permission: { all: ['read_all'] },
  binds: ['stateHash'],
  runsOnGameThread: true,
  frame: ({ game }) => ({ tick: game.currentTick(), hash: game.stateHash() }),
});
