import { randomInt } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import type { WorldSnapshot } from '../../shared/game-module.ts';
import { installWorld, type InstalledWorld } from '../shared/world-swap.ts';
import { defineCommand } from '../define.ts';

export const MAX_SEED = 2 ** 31 - 1;

export default defineCommand({
  name: 'generate_world',
  category: 'control',
  description:
    'Generate a new world of zone_x × zone_y zones (64 tiles a zone) and make it live. Generation runs on a pool ' +
    'thread; the swap takes one frame. Without a seed a random one is picked (and returned).',
  args: Type.Object(
    {
      zone_x: Type.Integer({ minimum: 2, maximum: 16, description: 'width in 64-tile zones' }),
      zone_y: Type.Integer({ minimum: 2, maximum: 16, description: 'height in 64-tile zones' }),
      seed: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SEED, description: 'generator seed; the same seed and size give the same world' })),
      rules: Type.Optional(
        Type.String({
          maxLength: LIMITS.idMaxLength,
          description:
            "the world's rules, kept by the world (savepoints, saves): the sandbox's are sandbox (the default: every action free), grow (a " +
            'budget of favor per kingdom pays for its players’ actions) and duel (two kingdoms at war, a budget each); docs/research.md, "Scenarios"',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({ width: Type.Integer(), height: Type.Integer(), seed: Type.Integer() }),
  permission: { all: ['control_world'] },
  binds: ['generateWorld', 'installWorld'],
  runsOnGameThread: false,
  phases: {
    install: ({ game, shared, clock, emit }, snapshot: WorldSnapshot): InstalledWorld => {
      const installed = installWorld({ game, shared, clock }, snapshot);
      emit('world_generated', { ...installed, cause: 'generate_world' });
      return installed;
    },
  },
  pool: async (env) => {
    const seed = env.args.seed ?? randomInt(0, MAX_SEED + 1);
    const game = await env.game();
    // decisions §14: its phases, for a caller that asked.
    env.progress(1, 2, 'generate');
    // The heavy part, off the game thread: no frame waits for it.
    const snapshot = game.generateWorld({
      zonesX: env.args.zone_x,
      zonesY: env.args.zone_y,
      seed,
      ...(env.args.rules !== undefined && { rules: env.args.rules }),
    });
    env.progress(2, 2, 'install');
    return (await env.frame('install', snapshot)) as InstalledWorld;
  },
});
