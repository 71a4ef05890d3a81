import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from '../define.ts';

const Asset = Type.Object({ id: Type.String() }, { additionalProperties: true });

export default defineCommand({
  name: 'list_tiles',
  category: 'discovery',
  description:
    'The tile catalogue: `items` are the tile types (inputs of paint_tile.tile_id), `top_tiles` the layer drawn ' +
    'over a tile (inputs of paint_tile.top_id), each with its properties.',
  args: NoArgs,
  // Two arrays rather than one list with a layer field: `items` stays exactly the set of valid
  // tile_id values, as in every other catalogue read, and top ids never pass for tile ids.
  result: Type.Object({
    items: Type.Array(Asset),
    count: Type.Integer(),
    top_tiles: Type.Array(Asset),
    top_count: Type.Integer(),
  }),
  permission: {},
  binds: ['listTiles', 'listTopTiles'],
  runsOnGameThread: true,
  frame: ({ game }) => {
    const items = game.listTiles();
    const tops = game.listTopTiles();
    return { items, count: items.length, top_tiles: tops, top_count: tops.length };
  },
});
