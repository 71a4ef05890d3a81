import { Type } from '@sinclair/typebox';
import { defineCommand, NoArgs } from './define.ts';

/**
 * Frame calls the bridge itself makes (never served over HTTP, absent from /capabilities): the
 * session asks the game thread for the kingdom order to resolve `auto:N` claims.
 */
export const bridgeInternal = defineCommand({
  name: '__bridge',
  category: 'meta',
  description: 'frame calls made by the bridge itself',
  args: NoArgs,
  result: Type.Unknown(),
  permission: {},
  binds: [],
  requiresMainThread: true,
  phases: {
    kingdom_order: ({ game }) => (typeof game.kingdomOrder === 'function' ? game.kingdomOrder() : []),
  },
});

export const INTERNAL_COMMANDS = [bridgeInternal];
