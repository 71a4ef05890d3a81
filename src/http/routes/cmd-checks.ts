// POST /cmd's checks of a parsed request, in the spec's order. Before admission (spec step 3): the
// command's name (404), its args against the schema (400), then its own precheck hook, so what
// they refuse never waits for a slot. With the slot held (spec step 4): permission (403), turn
// (409), then the command's checkAccess hook, for what may change while it waited.
import { permissionFailure } from '../../auth/permissions.ts';
import { argsProblem } from '../../commands/args-problem.ts';
import type { CheckContext, CommandDef } from '../../commands/define.ts';
import { badArgsFailure, type Failure } from '../../errors/failures.ts';
import type { CallerContext } from '../../shared/caller.ts';
import type { CommandRequest } from '../body.ts';
import type { RequestLog } from '../context.ts';

/** The command to run, or why the request is refused before it waits for a slot. Names the command in `line` once it is known. */
export function checkBeforeAdmission(checks: CheckContext, request: CommandRequest, caller: CallerContext, line: RequestLog): CommandDef | Failure {
  const { name, args } = request;
  const registered = checks.commands.get(name);
  // Only a registered name is logged: an unknown one is whatever the client sent.
  if (!registered) return checks.commands.unknownCommand(name);
  line.command = name;
  if (!registered.validate(args)) return badArgsFailure(argsProblem(registered.validate));
  return registered.def.precheck?.(args as never, caller, checks) ?? registered.def;
}

/** spec step 4, with the slot held: permission, then turn, both before any game-state work, then the command's own; null when it may run. */
export function checkWithSlot(checks: CheckContext, def: CommandDef, request: CommandRequest, caller: CallerContext): Failure | null {
  return (
    permissionFailure(request.name, def.permission, caller) ?? checks.checkTurn(def, caller) ?? def.checkAccess?.(request.args as never, caller, checks) ?? null
  );
}

/** Whether checkBeforeAdmission refused the request. */
export function isFailure(checked: CommandDef | Failure): checked is Failure {
  return (checked as Failure).ok === false;
}
