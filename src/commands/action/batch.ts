import { defineCommand } from '../define.ts';
import { checkItemAccess, checkItems, ranGatedItem } from './batch/items.ts';
import { runBatch } from './batch/run.ts';
import { BatchArgs, BatchResult } from './batch/schema.ts';

/**
 * decisions §8: up to 32 commands in one admission slot, one queue entry and one frame. Its items
 * are checked once before admission (precheck); with the slot held, only what may have changed
 * while it waited is checked again (checkAccess). Its frame step runs the items (runFrame).
 */
export default defineCommand({
  name: 'batch',
  category: 'action',
  description:
    'Run up to 32 commands in order, back to back in one game frame, with nothing else in between, for one admission ' +
    'slot: faster than separate calls when you have several reads or single actions ready at once, and they see one ' +
    'consistent world. Each item is checked first as if sent alone; any bad item refuses the whole batch, naming it. ' +
    'Items: reads, discovery, spawn, paint_tile, single-pulse invoke_power, pause, resume, set_speed, dismiss_window. ' +
    'The answer has one result per item; with stop_on_error (default true) the items after a failure are skipped.',
  args: BatchArgs,
  result: BatchResult,
  // decisions §8: each item is checked for its own permission and turn; the batch itself needs none.
  permission: {},
  turnGated: false,
  // Each item is priced as it runs (a refused item is an item's failure, as any other).
  priced: false,
  binds: [],
  runsOnGameThread: true,
  frameItems: (args) => args.commands.length,
  // decisions §8: a refused item refuses the batch before it may wait for a slot.
  precheck: (args, caller, checks) => checkItems(args, checks) ?? checkItemAccess(args, caller, checks),
  checkAccess: checkItemAccess,
  keepsTurn: (args, result, checks) => ranGatedItem(args, result.results, checks),
  frame: (env) => runBatch(env.args, env.runFrame, env.progress),
});
