import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { checkPoint, TileX, TileY } from '../shared/checks.ts';
import { defineCommand } from '../define.ts';

export const SpawnArgs = Type.Object(
  {
    entity_id: Type.String({ maxLength: LIMITS.idMaxLength, description: 'an actor asset id from list_actors' }),
    x: TileX(),
    y: TileY(),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1, description: 'how many; the first lands on (x, y), the rest around it' })),
    adult: Type.Optional(Type.Boolean({ default: false, description: 'spawn grown-ups instead of newborns' })),
  },
  { additionalProperties: false },
);

export default defineCommand({
  name: 'spawn',
  category: 'action',
  description:
    'Spawn one or more actors at (x, y), the first on it and the rest around it. When the game refuses the centre ' +
    'tile for that actor the answer is GAME_REJECTED with its reason; tiles around it that do not fit count as failed.',
  args: SpawnArgs,
  result: Type.Object({
    entity_id: Type.String(),
    x: Type.Integer(),
    y: Type.Integer(),
    requested: Type.Integer(),
    spawned: Type.Integer(),
    failed: Type.Integer(),
    names: Type.Array(Type.String()),
  }),
  // decisions §4: action_faction or action_global.
  permission: { any: ['action_faction', 'action_global'] },
  binds: ['spawn', 'listActors', 'worldSize'],
  runsOnGameThread: true,
  frame: ({ game, args, catalogues }) => {
    const count = args.count ?? 1;
    const adult = args.adult ?? false;
    catalogues.check('actors', 'entity_id', args.entity_id);
    checkPoint(game, args.x, args.y);
    const outcome = game.spawn(args.entity_id, args.x, args.y, count, adult);
    return { entity_id: args.entity_id, x: args.x, y: args.y, requested: count, spawned: outcome.spawned, failed: outcome.failed, names: outcome.names };
  },
});
