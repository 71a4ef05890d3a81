import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { TransferGate } from '../../admission/transfer-gate.ts';
import type { Admission, Permit } from '../../admission/semaphore.ts';
import type { CheckContext, CommandDef } from '../../commands/define.ts';
import type { CommandRegistry } from '../../commands/registry.ts';
import type { Execution } from '../../dispatch/execute.ts';
import type { Client } from '../../dispatch/game-queue.ts';
import type { Releasable } from '../../dispatch/pool.ts';
import { badArgs, failureOf, type BridgeError } from '../../errors/bridge-error.ts';
import { DEFAULT_TIMINGS } from '../../limits.ts';
import { badArgsFailure, disabledFailure } from '../../errors/failures.ts';
import { keyProblem } from '../../idempotency/key.ts';
import type { IdempotencyStore } from '../../idempotency/store.ts';
import type { Session } from '../../session/session.ts';
import type { CallerContext } from '../../shared/caller.ts';
import type { SharedState } from '../../shared/layout.ts';
import { progressTokenProblem, type ProgressChannel, type ProgressSink } from '../../shared/progress.ts';
import { isJsonContentType, parseCommandBody, type CommandRequest } from '../body.ts';
import { header, round, type AppContext, type Env, type RequestLog } from '../context.ts';
import { fail, overLimit } from '../respond.ts';
import { answerRun, type AnswerDeps } from './cmd-answer.ts';
import { checkBeforeAdmission, checkWithSlot, isFailure } from './cmd-checks.ts';
import { keyedRun, type RunTrace } from './cmd-idempotency.ts';

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
  const answering: AnswerDeps = { shared: deps.shared, session: deps.session, transfers, checks };

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

  /** One parsed request: its checks, its slot, its run and its answer. */
  async function runRequest(c: AppContext, request: CommandRequest, trace: RunTrace | null, progressToken: string | undefined): Promise<Response> {
    const line = c.get('line');
    const caller = c.get('caller');
    const { name, args } = request;
    const def = checkBeforeAdmission(checks, request, caller, line);
    if (isFailure(def)) return fail(c, def, name, args);
    // c.req.raw: its signal is built only if the request has to wait. A free slot comes at once,
    // with no wait to time and no await.
    const admitted = deps.admission.acquire(c.req.raw, caller.agentId);
    const permit = admitted instanceof Promise ? await timedWait(line, admitted) : admitted;
    if (permit === null) return fail(c, deps.admission.refusal(), name, args);
    let holdUntil: Promise<void> | null = null;
    let progress: ReturnType<ProgressChannel['open']> | undefined;
    try {
      const refused = checkWithSlot(checks, def, request, caller);
      if (refused) return fail(c, refused, name, args);
      // decisions §14: progress for the caller alone, open until its answer is made.
      if (progressToken !== undefined && progressChannel) progress = progressChannel.open(caller, progressToken, name);
      // decisions §14: Node's response tells whether the client is still there (none under app.request()).
      const run = await deps.execute(def, args, caller, permit, c.env?.outgoing, progress?.report);
      progress?.close();
      holdUntil = run.settled;
      return answerRun(c, answering, run, def, request, caller, trace);
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
