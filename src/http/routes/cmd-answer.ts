// POST /cmd's answer to a run (spec steps 5 and 6): the run's figures in the log line, the failure
// or the success envelope serialised, the answer's bytes charged to the agent's transfers
// (decisions §13 and §15), and the turn kept when the answer did the turn's work (decisions §11).
import type { TransferGate } from '../../admission/transfer-gate.ts';
import type { CheckContext, CommandDef } from '../../commands/define.ts';
import type { Execution } from '../../dispatch/execute.ts';
import { toFailure } from '../../errors/bridge-error.ts';
import type { Session } from '../../session/session.ts';
import type { CallerContext } from '../../shared/caller.ts';
import { kTick, type SharedState } from '../../shared/layout.ts';
import type { CommandRequest } from '../body.ts';
import { round, type AppContext } from '../context.ts';
import { successBody } from '../envelope.ts';
import { fail, send } from '../respond.ts';
import { traced, type RunTrace } from './cmd-idempotency.ts';

export interface AnswerDeps {
  shared: SharedState;
  session: Pick<Session, 'acted'>;
  transfers: TransferGate;
  checks: CheckContext;
}

/** The answer to `run`, the run of `def` for `request`; with a trace, it notes what the answer was made of. */
export function answerRun(
  c: AppContext,
  deps: AnswerDeps,
  run: Execution,
  def: CommandDef,
  request: CommandRequest,
  caller: CallerContext,
  trace: RunTrace | null,
): Response {
  const { name, args } = request;
  const line = c.get('line');
  if (run.place) c.set('place', run.place);
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
  deps.transfers.charge(caller.agentId, body.length);
  // decisions §11: only an answer of 200 that did the turn's work keeps it (by default, a gated command's).
  if (def.keepsTurn ? def.keepsTurn(args as never, run.outcome.value as never, deps.checks) : def.turnGated) deps.session.acted(caller);
  return send(c, 200, body);
}
