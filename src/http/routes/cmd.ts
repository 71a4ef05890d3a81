import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { TransferGate } from '../../admission/transfer-gate.ts';
import type { Admission, Permit } from '../../admission/semaphore.ts';
import { permissionFailure } from '../../auth/permissions.ts';
import { argsProblem } from '../../commands/args-problem.ts';
import type { CheckContext, CommandDef } from '../../commands/define.ts';
import type { CommandRegistry } from '../../commands/registry.ts';
import type { Execution } from '../../dispatch/execute.ts';
import type { Client } from '../../dispatch/game-queue.ts';
import type { Releasable } from '../../dispatch/pool.ts';
import { badArgs, failureOf, toFailure, type BridgeError } from '../../errors/bridge-error.ts';
import { DEFAULT_TIMINGS } from '../../limits.ts';
import { badArgsFailure, disabledFailure } from '../../errors/failures.ts';
import { keyProblem } from '../../idempotency/key.ts';
import type { IdempotencyStore } from '../../idempotency/store.ts';
import type { Session } from '../../session/session.ts';
import type { CallerContext } from '../../shared/caller.ts';
import { kTick, type SharedState } from '../../shared/layout.ts';
import { progressTokenProblem, type ProgressChannel, type ProgressSink } from '../../shared/progress.ts';
import { isJsonContentType, parseCommandBody, type CommandRequest } from '../body.ts';
import { header, round, type AppContext, type Env, type RequestLog } from '../context.ts';
import { successBody } from '../envelope.ts';
import { fail, overLimit, send } from '../respond.ts';
import { keyedRun, traced, type RunTrace } from './cmd-idempotency.ts';

export interface CmdDeps {
  enabled(): boolean;
  registry: CommandRegistry;
  admission: Admission;
  /** The session's step-4 turn check, and `acted`: a holder's answer of 200 that keeps its turn (decisions §11). */
  session: Pick<Session, 'checkTurn' | 'acted'>;
  shared: SharedState;
  maxBodyBytes: number;
  /** decisions §13: an agent's rest for each MiB of its large bodies and answers (default the bridge's). */
  transferRestMsPerMiB?: number;
  /**
   * `slot`: the request's admission slot, which a waiting recv_events gives back (decisions §7).
   * decisions §14: `client`, whose leaving before the command started takes it off the queue;
   * `progress`, where the command's progress goes.
   */
  execute(def: CommandDef, args: unknown, caller: CallerContext, slot: Releasable, client?: Client, progress?: ProgressSink): Promise<Execution>;
  /** decisions §8: the kept answers of Idempotency-Key requests; without it the header is only checked. */
  idempotency?: IdempotencyStore;
}

/**
 * POST /cmd after authentication, in the order of decisions §5: DISABLED → body read within the
 * limit and parsed → command name (404) → args schema (400) → admission slot (5 s, 503) →
 * permission (403) → turn (409) → run → serialise, answer, release the slot. decisions §8: an
 * Idempotency-Key is checked first and its kept answer consulted once the body is parsed. A
 * command's own hooks run in that order too: precheck before the slot, checkAccess with it.
 */
export function cmdRoutes(deps: CmdDeps, progressChannel?: ProgressChannel): Hono<Env> {
  const checks: CheckContext = { commands: deps.registry, checkTurn: (def, caller) => deps.session.checkTurn(def, caller) };
  const limitBody = bodyLimiter(deps.maxBodyBytes, runCommand);
  const transfers = new TransferGate(deps.transferRestMsPerMiB ?? DEFAULT_TIMINGS.transferRestMsPerMiB);

  // decisions §8 and §13: requests with an Idempotency-Key, around the same run.
  const runKeyed = keyedRun(deps.idempotency, deps.registry, runRequest);

  /**
   * One handler, not three: each handler after the first is a step of hono's compose, with a
   * dispatch, a closure and a promise per request. The audit record is written by an answer
   * observer, so nothing stands in front of this route.
   */
  function cmd(c: AppContext): Response | Promise<Response> {
    // decisions §5: DISABLED after authentication, before the body is read.
    if (!deps.enabled()) {
      return fail(c, disabledFailure('the bridge is disabled (enabled = false in bridge.toml); set it to true, no restart needed'), '', {});
    }
    if (!isJsonContentType(header(c, 'content-type'))) return fail(c, badArgsFailure('Content-Type must be application/json'), '', {});
    return limitBody(c);
  }

  async function runCommand(c: AppContext): Promise<Response> {
    // decisions §8 and §14: a malformed key or progress token is refused before the body is read.
    const key = header(c, 'idempotency-key');
    const keyError = key === undefined ? null : keyProblem(key);
    if (keyError !== null) return fail(c, badArgsFailure(keyError), '', {});
    const progressToken = header(c, 'progress-token');
    const tokenError = progressToken === undefined ? null : progressTokenProblem(progressToken);
    if (tokenError !== null) return fail(c, badArgsFailure(tokenError), '', {});
    const request = await readBody(c, transfers);
    if (request instanceof Error) return fail(c, failureOf(request), '', {});
    c.set('cmdRequest', request);
    if (key === undefined) return runRequest(c, request, null, progressToken);
    return runKeyed(c, request, key, progressToken);
  }

  async function runRequest(c: AppContext, request: CommandRequest, trace: RunTrace | null, progressToken: string | undefined): Promise<Response> {
    const line = c.get('line');
    const caller = c.get('caller');
    const { name, args } = request;
    const registered = deps.registry.get(name);
    // Only a registered name is logged: an unknown one is whatever the client sent.
    if (registered) line.command = name;
    if (!registered) return fail(c, deps.registry.unknownCommand(name), name, args);
    if (!registered.validate(args)) return fail(c, badArgsFailure(argsProblem(registered.validate)), name, args);
    const def = registered.def;
    // The command's own step 3, before the slot: what it refuses never waits for one.
    const prechecked = def.precheck?.(args as never, caller, checks);
    if (prechecked) return fail(c, prechecked, name, args);
    // c.req.raw: its signal is built only if the request has to wait. A free slot comes at once,
    // with no wait to time and no await.
    const admitted = deps.admission.acquire(c.req.raw, caller.agentId);
    const permit = admitted instanceof Promise ? await timedWait(line, admitted) : admitted;
    if (permit === null) return fail(c, deps.admission.refusal(), name, args);
    let holdUntil: Promise<void> | null = null;
    let progress: ReturnType<ProgressChannel['open']> | undefined;
    try {
      // spec step 4: permission, then turn, both before any game-state work, then the command's own.
      const refused =
        permissionFailure(name, def.permission, caller) ?? deps.session.checkTurn(def, caller) ?? def.checkAccess?.(args as never, caller, checks);
      if (refused) return fail(c, refused, name, args);
      // decisions §14: progress for the caller alone, open until its answer is made.
      if (progressToken !== undefined && progressChannel) progress = progressChannel.open(caller, progressToken, name);
      // decisions §14: Node's response tells whether the client is still there (none under app.request()).
      const run = await deps.execute(def, args, caller, permit, c.env?.outgoing, progress?.report);
      progress?.close();
      if (run.place) c.set('place', run.place);
      holdUntil = run.settled;
      if (trace) trace.settled = run.settled;
      line.queue_wait_ms = round(run.queueWaitMs);
      line.run_ms = round(run.runMs);
      if (!run.outcome.ok) return fail(c, traced(trace, run.outcome), name, args);
      let body: string;
      try {
        body = successBody(run.outcome.value, Atomics.load(deps.shared.control, kTick));
      } catch (err) {
        return fail(c, traced(trace, toFailure(err)), name, args);
      }
      if (trace) trace.body = body;
      // decisions §13 and §15: an answer is paced like a body, whatever its size.
      transfers.charge(caller.agentId, body.length);
      // decisions §11: only an answer of 200 that did the turn's work keeps it (by default, a gated command's).
      if (def.keepsTurn ? def.keepsTurn(args as never, run.outcome.value as never, checks) : def.turnGated) deps.session.acted(caller);
      return send(c, 200, body);
    } finally {
      progress?.close();
      // spec step 6: the slot goes back once the answer is serialised, or, after a backstop
      // answer, once the work it stands for has really ended.
      if (holdUntil) void holdUntil.then(() => permit.release());
      else permit.release();
    }
  }

  return new Hono<Env>().post('/cmd', cmd);
}

/** The body read and parsed; decisions §13 and §15: paced with all of the agent's transfers. */
async function readBody(c: AppContext, transfers: TransferGate): Promise<CommandRequest | BridgeError> {
  // A body of unknown length (chunked, NaN here) is charged once read.
  const turn = transfers.enter(c.get('caller').agentId, Number(header(c, 'content-length')));
  const release = turn === null ? null : await turn;
  let bytesRead = 0;
  try {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    bytesRead = bytes.byteLength;
    return parseCommandBody(bytes);
  } catch {
    return badArgs('request body could not be read');
  } finally {
    release?.(bytesRead);
  }
}

/** A slot the request had to wait for, the wait noted in its log line. */
async function timedWait(line: RequestLog, waiting: Promise<Permit | null>): Promise<Permit | null> {
  const t0 = performance.now();
  const permit = await waiting;
  line.admission_wait_ms = round(performance.now() - t0);
  return permit;
}

/**
 * decisions §5: over the limit by Content-Length is refused before reading; hono's bodyLimit covers
 * streamed (chunked) bodies. Only those go through it: asking a node-server request for its body
 * stream builds a full web Request, which costs every ordinary POST. Within the limit, `run` reads
 * the body; called directly, not as a next handler (a step of hono's compose saved).
 */
function bodyLimiter(maxBodyBytes: number, run: (c: AppContext) => Promise<Response>): (c: AppContext) => Response | Promise<Response> {
  const streamedLimit = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (c) => fail(c as AppContext, overLimit(maxBodyBytes), '', {}),
  });
  // bodyLimit answers itself when the stream goes over; otherwise the run's answer stands.
  async function runStreamed(c: AppContext): Promise<Response> {
    let response: Response | undefined;
    const refused = await streamedLimit(c, async () => {
      response = await run(c);
    });
    return refused ?? response!;
  }
  return (c) => {
    const length = header(c, 'content-length');
    if (length === undefined || header(c, 'transfer-encoding') !== undefined) return runStreamed(c);
    return Number(length) > maxBodyBytes ? fail(c, overLimit(maxBodyBytes), '', {}) : run(c);
  };
}
