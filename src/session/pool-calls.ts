// The session calls a pool command may make (PoolEnv.session), name → method. The pool's RPC runs
// these and nothing else: the main loop owns the session and calls its methods directly.
import { toFailure, type Outcome } from '../errors/bridge-error.ts';
import type { CallerContext } from '../shared/caller.ts';
import type { KingdomInfo } from '../shared/game-module.ts';
import type { Session } from './session.ts';

/** One call: turns the worker's untyped input into the method's own arguments. */
type PoolSessionCall = (session: Session, input: Record<string, unknown>, caller: CallerContext) => unknown;

const CALLS: ReadonlyMap<string, PoolSessionCall> = new Map<string, PoolSessionCall>([
  ['info', (session) => session.info()],
  ['turn_advance', (session, _input, caller) => session.advanceTurn(caller)],
  [
    'send',
    (session, input, caller) =>
      session.send(caller, { to: String(input.to), content: String(input.content), kind: typeof input.kind === 'string' ? input.kind : 'text' }),
  ],
  [
    'recv',
    (session, input, caller) =>
      session.receive(caller, typeof input.since_seq === 'number' ? input.since_seq : 0, typeof input.max === 'number' ? input.max : 50),
  ],
  ['objectives', (session, input) => session.objectives(input.kingdoms as KingdomInfo[])],
]);

/** The names a pool command may call, for its error message and tests. */
export const POOL_SESSION_CALLS: readonly string[] = [...CALLS.keys()];

/** Runs one session call of a pool command. Never throws: a refusal or an unknown name is a Failure. */
export function callSession(session: Session, name: string, input: unknown, caller: CallerContext): Outcome<unknown> {
  try {
    const call = CALLS.get(name);
    if (!call) throw new Error(`unknown session call '${name}': a pool command may call ${POOL_SESSION_CALLS.join(', ')}`);
    return { ok: true, value: call(session, (input ?? {}) as Record<string, unknown>, caller) };
  } catch (err) {
    return toFailure(err);
  }
}
