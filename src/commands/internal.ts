import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from './define.ts';

/**
 * Frame calls the bridge itself makes (never served over HTTP, absent from /capabilities): the
 * session asks the game thread for the kingdom order to resolve `auto:N` claims, and the event
 * layer for the kingdoms that agents' objectives are judged against.
 */
export const bridgeInternal = defineCommand({
  name: '__bridge',
  category: 'meta',
  description: 'frame calls made by the bridge itself',
  args: NoArgs,
  result: Type.Unknown(),
  permission: {},
  binds: [],
  runsOnGameThread: true,
  phases: {
    kingdom_order: ({ game }) => (typeof game.kingdomOrder === 'function' ? game.kingdomOrder() : []),
    // objective_changed (src/events/objectives.ts): the kingdoms the objectives are judged against.
    kingdoms: ({ game }) => (typeof game.listKingdoms === 'function' ? game.listKingdoms(true) : []),
  },
});

export const INTERNAL_COMMANDS = [bridgeInternal];
