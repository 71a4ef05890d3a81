import { Hono, type Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Admission } from '../../admission/semaphore.ts';
import { missingPermission } from '../../auth/permissions.ts';
import type { CommandDef } from '../../commands/define.ts';
import type { CommandRegistry } from '../../commands/registry.ts';
import type { Execution } from '../../dispatch/execute.ts';
import type { Releasable } from '../../dispatch/pool.ts';
import { failureOf, toFailure } from '../../errors/bridge-error.ts';
import type { Session } from '../../session/session.ts';
import type { CallerContext } from '../../shared/caller.ts';
import { kTick, type SharedState } from '../../shared/layout.ts';
import { isJsonContentType, parseCommandBody } from '../body.ts';
import { header, round, type AppContext, type Env } from '../context.ts';
import { successBody } from '../envelope.ts';
import { busy, fail, overLimit, send } from '../respond.ts';

export interface CmdDeps {
  enabled(): boolean;
  registry: CommandRegistry;
  admission: Admission;
  /** The session's step-4 turn check. */
  session: Pick<Session, 'checkTurn'>;
  shared: SharedState;
  maxBodyBytes: number;
  /** `slot`: the request's admission slot, which a waiting recv_events gives back (decisions §7). */
  execute(def: CommandDef, args: unknown, caller: CallerContext, slot: Releasable): Promise<Execution>;
}

/**
 * POST /cmd after authentication, in the order of decisions §5: DISABLED → body read within the
 * limit and parsed → command name (404) → args schema (400) → admission slot (5 s, 503) →
 * permission (403) → turn (409) → run → serialise, answer, release the slot.
 */
export function cmdRoutes(deps: CmdDeps): Hono<Env> {
  // decisions §5: over the limit by Content-Length is refused before reading; hono's bodyLimit
  // covers streamed (chunked) bodies. Only those go through it: asking a node-server request for
  // its body stream builds a full web Request, which costs every ordinary POST.
  const streamedLimit = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) => fail(c as AppContext, overLimit(deps.maxBodyBytes), '', {}),
  });
  const limitBody = (c: AppContext, next: Next) => {
    const length = header(c, 'content-length');
    if (length === undefined || header(c, 'transfer-encoding') !== undefined) return streamedLimit(c, next);
    return Number(length) > deps.maxBodyBytes ? Promise.resolve(fail(c, overLimit(deps.maxBodyBytes), '', {})) : next();
  };

  function checkRequest(c: AppContext, next: Next) {
    // decisions §5: DISABLED after authentication, before the body is read.
    if (!deps.enabled()) {
      return Promise.resolve(
        fail(c, { ok: false, code: 'DISABLED', message: 'the bridge is disabled (enabled = false in bridge.toml); set it to true, no restart needed' }, '', {}),
      );
    }
    if (!isJsonContentType(header(c, 'content-type'))) {
      return Promise.resolve(fail(c, { ok: false, code: 'BAD_ARGS', message: 'Content-Type must be application/json' }, '', {}));
    }
    return next();
  }

  async function runCommand(c: AppContext): Promise<Response> {
    const line = c.get('line');
    const caller = c.get('caller');
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await c.req.arrayBuffer());
    } catch {
      return fail(c, { ok: false, code: 'BAD_ARGS', message: 'request body could not be read' }, '', {});
    }
    const request = parseCommandBody(bytes);
    if (request instanceof Error) return fail(c, failureOf(request), '', {});
    const { name, args } = request;
    c.set('cmdRequest', request);
    const registered = deps.registry.get(name);
    // Only a registered name is logged: an unknown one is whatever the client sent.
    if (registered) line.command = name;
    if (!registered) return fail(c, deps.registry.unknownCommand(name), name, args);
    if (!registered.validate(args)) {
      const error = registered.validate.errors?.[0];
      const where = error?.instancePath ? `args${error.instancePath.replaceAll('/', '.')}` : 'args';
      const detail =
        error?.keyword === 'additionalProperties' ? `has unknown property '${String(error.params.additionalProperty)}'` : (error?.message ?? 'is invalid');
      return fail(c, { ok: false, code: 'BAD_ARGS', message: `${where} ${detail} (GET /capabilities has the schema)` }, name, args);
    }
    const t0 = performance.now();
    const permit = await deps.admission.acquire(() => c.req.raw.signal, c.get('caller').agentId);
    line.admission_wait_ms = round(performance.now() - t0);
    if (permit === null) return fail(c, busy(deps.admission.waitMs), name, args);
    let holdUntil: Promise<void> | null = null;
    try {
      const def = registered.def;
      // spec step 4: permission, then turn, both before any game-state work.
      const missing = missingPermission(def.permission, caller.permissions);
      if (missing !== null) {
        return fail(
          c,
          {
            ok: false,
            code: 'PERMISSION_DENIED',
            message: `agent '${caller.agentId}' (role ${caller.role}) lacks the ${missing} permission that '${name}' needs`,
          },
          name,
          args,
        );
      }
      const turn = deps.session.checkTurn(def, caller);
      if (turn !== null) return fail(c, failureOf(turn), name, args);
      const run = await deps.execute(def, args, caller, permit);
      holdUntil = run.settled;
      line.queue_wait_ms = round(run.queueWaitMs);
      line.run_ms = round(run.runMs);
      if (!run.outcome.ok) return fail(c, run.outcome, name, args);
      let body: string;
      try {
        body = successBody(run.outcome.value, Atomics.load(deps.shared.control, kTick));
      } catch (err) {
        return fail(c, toFailure(err), name, args);
      }
      return send(c, 200, body);
    } finally {
      // spec step 6: the slot goes back once the answer is serialised, or, after a backstop
      // answer, once the work it stands for has really ended.
      if (holdUntil) void holdUntil.then(() => permit.release());
      else permit.release();
    }
  }

  return new Hono<Env>().post('/cmd', checkRequest, limitBody, runCommand);
}
