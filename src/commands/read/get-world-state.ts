import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

export default defineCommand({
  name: 'get_world_state',
  category: 'read',
  description: 'Map size, seed, tick, pause (true while a window is open), population counts, and kingdom and city counts in a game that has them.',
  args: NoArgs,
  result: Type.Object({
    width: Type.Integer(),
    height: Type.Integer(),
    seed: Type.Integer(),
    tick: Type.Integer(),
    paused: Type.Boolean(),
    population_alive: Type.Integer(),
    population_lifetime: Type.Integer(),
    // Optional: only a game with kingdoms and cities (the sandbox) counts them.
    kingdoms_alive: Type.Optional(Type.Integer()),
    kingdoms_ever_created: Type.Optional(Type.Integer()),
    cities_alive: Type.Optional(Type.Integer()),
    cities_ever_created: Type.Optional(Type.Integer()),
    rules: Type.Optional(Type.String({ description: "the world's rules, in a game that has named rule sets (the sandbox: sandbox, grow, duel)" })),
  }),
  permission: {},
  binds: ['getWorldState'],
  runsOnGameThread: true,
  frame: ({ game }) => game.getWorldState(),
});
