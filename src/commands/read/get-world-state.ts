import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'get_world_state',
  category: 'read',
  description: 'Map size, seed, tick, pause (true while a window is open) and population, kingdom and city counts.',
  args: NoArgs,
  result: Type.Object({
    width: Type.Integer(),
    height: Type.Integer(),
    seed: Type.Integer(),
    tick: Type.Integer(),
    paused: Type.Boolean(),
    population_alive: Type.Integer(),
    population_lifetime: Type.Integer(),
    kingdoms_alive: Type.Integer(),
    kingdoms_ever_created: Type.Integer(),
    cities_alive: Type.Integer(),
    cities_ever_created: Type.Integer(),
  }),
  permission: {},
  binds: ['getWorldState'],
  requiresMainThread: true,
  frame: ({ game }) => game.getWorldState(),
});
