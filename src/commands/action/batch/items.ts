// decisions §8: the main loop's checks of a batch's items, each as if the item came alone. One bad
// item refuses the whole batch, naming it (`commands[3]: ...`).
import { permissionFailure } from '../../../auth/permissions.ts';
import { badArgsFailure, type Failure } from '../../../errors/failures.ts';
import type { CallerContext } from '../../../shared/caller.ts';
import { argsProblem } from '../../args-problem.ts';
import type { CheckContext, CommandDef } from '../../define.ts';
import type { BatchArgs } from './schema.ts';

export const BATCH_NAME = 'batch';

// Whole categories that never run in one frame on the game thread: meta and bus live on the main
// loop and the pool.
const EXCLUDED_CATEGORIES = new Set(['meta', 'bus']);

/**
 * Why `def` can never be a batch item, or null. An item must do all its work on the game thread in
 * one frame: no pool step (screenshot, save_world), no pool command (generate_world, load_world).
 */
export function itemExclusion(def: CommandDef): string | null {
  if (def.name === BATCH_NAME) return 'a batch cannot contain a batch';
  if (EXCLUDED_CATEGORIES.has(def.category) || !def.runsOnGameThread || !def.frame || def.pool) {
    return `'${def.name}' cannot be a batch item: it does not do all its work on the game thread in one frame (items are reads, discovery, spawn, paint_tile, single-pulse invoke_power, pause, resume, set_speed, dismiss_window)`;
  }
  return null;
}

/** Spec step 3 for every item: a known, batchable name and valid args. */
export function checkItems(request: BatchArgs, checks: CheckContext): Failure | null {
  for (const [index, item] of request.commands.entries()) {
    const at = `commands[${index}]`;
    const registered = checks.commands.get(item.name);
    if (!registered) return unknownItem(at, item.name, checks);
    const excluded = itemExclusion(registered.def);
    if (excluded !== null) return badItem(at, excluded);
    const args = item.args ?? {};
    if (!registered.validate(args)) return badItem(at, argsProblem(registered.validate));
    const refusal = registered.def.batchRefusal?.(args);
    if (refusal) return badItem(at, refusal);
  }
  return null;
}

/**
 * Spec step 4 for every item: its permission, then its turn, as a lone command gets them at this
 * moment. The one check a batch needs again once it holds a slot: the turn may pass, and a reload
 * may change the caller's permissions, while it waits.
 */
export function checkItemAccess(request: BatchArgs, caller: CallerContext, checks: CheckContext): Failure | null {
  for (const [index, item] of request.commands.entries()) {
    const at = `commands[${index}]`;
    const def = checks.commands.get(item.name)?.def;
    if (!def) return unknownItem(at, item.name, checks);
    const refused = permissionFailure(def.name, def.permission, caller) ?? checks.checkTurn(def, caller);
    if (refused) return { ...refused, message: `${at}: ${refused.message}` };
  }
  return null;
}

/** decisions §13: a batch keeps the turn only when a turn-gated item of it ran in the game and succeeded. */
export function ranGatedItem(request: BatchArgs, results: ReadonlyArray<{ ok: boolean }>, checks: CheckContext): boolean {
  return results.some((result, index) => result.ok && checks.commands.get(request.commands[index]?.name ?? '')?.def.turnGated === true);
}

function unknownItem(at: string, name: string, checks: CheckContext): Failure {
  // Not 404: the request's command (batch) exists, one of its args does not (decisions §8).
  const unknown = checks.commands.unknownCommand(name);
  return badArgsFailure(`${at}: ${unknown.message}`, unknown.did_you_mean);
}

function badItem(at: string, message: string): Failure {
  return badArgsFailure(`${at}: ${message}`);
}
