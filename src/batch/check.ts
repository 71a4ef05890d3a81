// decisions §8: the main loop's checks of a batch's items, each as if the item came alone. One bad
// item refuses the whole batch before anything is queued, naming it (`commands[3]: ...`).
import { permissionFailure } from '../auth/permissions.ts';
import type { CommandDef } from '../commands/define.ts';
import { argsProblem } from '../commands/args-problem.ts';
import type { CommandRegistry } from '../commands/registry.ts';
import { failureOrNull, type BridgeError, type Failure } from '../errors/bridge-error.ts';
import type { CallerContext } from '../shared/caller.ts';

export const BATCH_COMMAND = 'batch';

export interface BatchRequest {
  commands: Array<{ name: string; args?: Record<string, unknown> }>;
  stop_on_error?: boolean;
}

// Whole categories that never run in one frame on the game thread: meta and bus live on the main
// loop and the pool.
const EXCLUDED_CATEGORIES = new Set(['meta', 'bus']);

/**
 * Why `def` can never be a batch item, or null. An item must do all its work on the game thread in
 * one frame: no pool step (screenshot, save_world), no pool command (generate_world, load_world).
 */
export function itemExclusion(def: CommandDef): string | null {
  if (def.name === BATCH_COMMAND) return 'a batch cannot contain a batch';
  if (EXCLUDED_CATEGORIES.has(def.category) || !def.requiresMainThread || !def.frame || def.pool) {
    return `'${def.name}' cannot be a batch item: it does not do all its work on the game thread in one frame (items are reads, discovery, spawn, paint_tile, single-pulse invoke_power, pause, resume, set_speed, dismiss_window)`;
  }
  return null;
}

/** Spec step 3 for every item: a known, batchable name and valid args. Returns the items' commands. */
export function checkItems(registry: CommandRegistry, request: BatchRequest): CommandDef[] | Failure {
  const defs: CommandDef[] = [];
  for (const [index, item] of request.commands.entries()) {
    const at = `commands[${index}]`;
    const registered = registry.get(item.name);
    if (!registered) {
      // Not 404: the request's command (batch) exists, one of its args does not (decisions §8).
      const unknown = registry.unknownCommand(item.name);
      return { ...unknown, code: 'BAD_ARGS', message: `${at}: ${unknown.message}` };
    }
    const excluded = itemExclusion(registered.def);
    if (excluded !== null) return badItem(at, excluded);
    const args = item.args ?? {};
    if (!registered.validate(args)) return badItem(at, argsProblem(registered.validate));
    const refusal = registered.def.batchRefusal?.(args);
    if (refusal) return badItem(at, refusal);
    defs.push(registered.def);
  }
  return defs;
}

/** Spec step 4 for every item: its permission, then its turn, as a lone command gets them. */
export function checkItemAccess(
  defs: readonly CommandDef[],
  caller: CallerContext,
  checkTurn: (def: CommandDef, caller: CallerContext) => BridgeError | null,
): Failure | null {
  for (const [index, def] of defs.entries()) {
    const refused = permissionFailure(def.name, def.permission, caller) ?? failureOrNull(checkTurn(def, caller));
    if (refused) return { ...refused, message: `commands[${index}]: ${refused.message}` };
  }
  return null;
}

function badItem(at: string, message: string): Failure {
  return { ok: false, code: 'BAD_ARGS', message: `${at}: ${message}` };
}
