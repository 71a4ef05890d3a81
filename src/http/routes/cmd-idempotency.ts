// decisions §8 and §13: POST /cmd with an Idempotency-Key. The first request of a key runs and the
// final answer of a command that changes something is kept when it reached the game; a retry gets
// that answer again, or waits for it (holding no slot) while the first runs.
import { keepsAnswer } from '../../commands/define.ts';
import type { CommandRegistry } from '../../commands/registry.ts';
import { badArgsFailure, type Failure } from '../../errors/failures.ts';
import { fingerprint } from '../../idempotency/key.ts';
import type { IdempotencyStore, KeptAnswer } from '../../idempotency/store.ts';
import type { CommandRequest } from '../body.ts';
import type { AppContext, RequestLog } from '../context.ts';
import { errorBody } from '../envelope.ts';
import { fail, send } from '../respond.ts';

/** What a run tells the idempotency layer beyond its answer: what the answer was made of, and a backstop answer's real end. */
export interface RunTrace {
  settled: Promise<void> | null;
  /** The success body as sent. */
  body: string | null;
  /** The failure of a run that reached the game, as sent. */
  failure: Failure | null;
}

/** Notes the failure of a run that reached the game in its trace, if it has one. */
export function traced(trace: RunTrace | null, failure: Failure): Failure {
  if (trace) trace.failure = failure;
  return failure;
}

/** Runs one parsed request; with a trace, it notes what the idempotency layer needs. `progressToken`: decisions §14. */
export type RunRequest = (c: AppContext, request: CommandRequest, trace: RunTrace | null, progressToken: string | undefined) => Promise<Response>;

// decisions §8: the answers of requests that reached the game (the backstop's 504 is decided apart).
const KEPT_STATUSES = new Set([200, 422, 500]);
const REPLAYED = { 'idempotent-replayed': 'true' };
// decisions §13: a fresh answer the bridge did not keep says so: the same key runs the request again.
const NOT_STORED = { 'idempotent-stored': 'false' };

function notStored(response: Response): Response {
  response.headers.set('idempotent-stored', 'false');
  return response;
}

/**
 * POST /cmd's handling of a request with a (well-formed) Idempotency-Key. Without a store the key
 * is only checked: nothing is kept.
 */
export function keyedRun(store: IdempotencyStore | undefined, registry: CommandRegistry, run: RunRequest) {
  return async function runKeyed(c: AppContext, request: CommandRequest, key: string, progressToken: string | undefined): Promise<Response> {
    const { name, args } = request;
    const registered = registry.get(name);
    // decisions §13: a read or meta command (or an unknown name) keeps nothing and checks nothing: it simply runs again.
    if (!store || !registered || !keepsAnswer(registered.def)) return notStored(await run(c, request, null, progressToken));
    const requestPrint = fingerprint(name, args);
    for (;;) {
      const claim = store.claim(c.get('caller').agentId, key, requestPrint);
      if (claim.kind === 'replay') return replay(c, name, claim.answer);
      if (claim.kind === 'conflict') {
        const message = `Idempotency-Key '${key}' was already used by this credential for another request (another name or args); use a fresh key for a new request`;
        return fail(c, badArgsFailure(message), name, args);
      }
      if (claim.kind === 'wait') {
        const answer = await claim.answer;
        if (answer !== null) return replay(c, name, answer);
        continue; // the first one never ran: this one runs
      }
      const trace: RunTrace = { settled: null, body: null, failure: null };
      let response: Response;
      try {
        response = await run(c, request, trace, progressToken);
      } catch (err) {
        claim.finish(null);
        throw err;
      }
      const status = response.status;
      // Kept: what reached the game. A 504 only from the backstop (the action started), and once it ended.
      if (!KEPT_STATUSES.has(status) && !(status === 504 && trace.settled !== null)) {
        claim.finish(null);
        return notStored(response);
      }
      // The body as sent, rebuilt from what made it (reading a Response back would cost a copy).
      const body = trace.body ?? (trace.failure ? errorBody(trace.failure, name, args) : await response.text());
      const answer: KeptAnswer = { status, body, code: c.get('line').code };
      let kept: boolean;
      if (trace.settled) {
        // The backstop's answer goes now; it is kept once the action has ended (retries wait till then).
        kept = claim.fits(answer);
        void trace.settled.then(() => claim.finish(answer));
      } else {
        kept = claim.finish(answer);
      }
      return send(c, status, answer.body, kept ? undefined : NOT_STORED);
    }
  };
}

function replay(c: AppContext, name: string, answer: KeptAnswer): Response {
  const line = c.get('line');
  // Only answers of registered commands are kept, so the name is safe to log.
  line.command = name;
  line.code = answer.code as RequestLog['code'];
  return send(c, answer.status, answer.body, REPLAYED);
}
