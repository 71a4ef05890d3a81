import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { PermissionRule } from '../auth/permissions.ts';
import { gameRejected, type Failure, type Outcome } from '../errors/bridge-error.ts';
import type { Timings } from '../limits.ts';
import type { CallerContext } from '../shared/caller.ts';
import type { FrameJobs, WorldClock } from '../shared/frame.ts';
import type { GameFunctionName, GameModule } from '../shared/game-module.ts';
import type { SharedState } from '../shared/layout.ts';
import type { Progress } from '../shared/progress.ts';
import type { BridgeInfo } from '../shared/protocol.ts';
import type { Catalogues } from './shared/checks.ts';
import type { RecordHolder } from './shared/recorder.ts';
import type { SavepointStore } from './shared/savepoints.ts';

export const JSON_SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';

export type Category = 'meta' | 'bus' | 'discovery' | 'action' | 'read' | 'control';

/** What a frame handler gets, on the game thread, inside a frame. */
export interface FrameEnv<A> {
  /** The game module; the functions in `binds` are guaranteed present. */
  game: Required<GameModule>;
  args: A;
  caller: CallerContext;
  /** The per-frame job registry (invoke_power pulses). */
  jobs: FrameJobs;
  /** decisions §12: the world's clock: step moves it tick by tick; tick and world-swap hooks join it. */
  clock: WorldClock;
  /** decisions §3: the game's catalogues, to check asset ids against (UNKNOWN_ASSET). */
  catalogues: Catalogues;
  /** decisions §12: the game thread's savepoints (one store, emptied on a world swap). */
  savepoints: SavepointStore;
  /** decisions §12: the game thread's episode record, while one runs (record_start sets it). */
  recording: RecordHolder;
  shared: SharedState;
  timings: Timings;
  /** decisions §7: the game host's emit (the bridge's frame kinds: world_generated, world_loaded). */
  emit(kind: string, fields?: Record<string, unknown>, kingdomIds?: readonly number[]): void;
  /**
   * Runs command `name`'s frame step now, inside this frame, with this caller, as a lone command of
   * that name would run (batch: its items). Never throws: a throw is its failure (GAME_CRASH for
   * game code), and a step that settles later gives a promise. The caller checks `name` and `args`.
   */
  runFrame(name: string, args: Record<string, unknown>): Outcome<unknown> | Promise<Outcome<unknown>>;
  /**
   * decisions §14: how far the command got, for a caller that asked (a Progress-Token); a no-op
   * otherwise. Reports are spaced 100 ms apart here, so call it as often as it is cheap to (each
   * tick, each pulse). It may be called after the frame step returned, until its answer.
   */
  progress: Progress;
  /**
   * decisions §15: whether a command of another agent waits in the game queue now (the bridge's own
   * calls do not count). A long step gives way once it has run its slice and this is true.
   */
  othersWaiting(): boolean;
}

/** What a command's own main-loop checks may consult, besides its args and its caller. */
export interface CheckContext {
  /** The enabled commands (the registry): a definition with its args validator, and the 404 for any other name. */
  commands: {
    get(name: string): { def: CommandDef; validate: ValidateFunction } | undefined;
    unknownCommand(name: string): Failure;
  };
  /** spec step 4: the turn check for `def` as the session stands at this moment. */
  checkTurn(def: CommandDef, caller: CallerContext): Failure | null;
}

/** What a pool handler gets, on a pool thread. */
export interface PoolEnv<A> {
  args: A;
  caller: CallerContext;
  info: BridgeInfo;
  shared: SharedState;
  timings: Timings;
  /** Queue one of this command's frame phases on the dispatcher and wait for its value. */
  frame(phase: string, input?: unknown): Promise<unknown>;
  /**
   * Queue a frame phase and return once it is queued, not run: anything queued after this answer
   * runs after it. If it fails later, `onFailure` (another phase) is queued in its place.
   */
  enqueue(phase: string, input?: unknown, onFailure?: string): Promise<void>;
  /** A call to the session state, which the main loop owns (decisions §4). */
  session(name: string, input?: unknown): Promise<unknown>;
  /** The game module, for its pure pool functions (generation, parsing, encoding). */
  game(): Promise<Required<GameModule>>;
  /** decisions §7: emit a bridge event from a pool step (world_saved once the file is written). */
  emit(kind: string, fields?: Record<string, unknown>): Promise<void>;
  /** decisions §7: recv_events, answered by the main loop's event history. */
  recvEvents(input: unknown): Promise<unknown>;
  /** decisions §14: how far the command got (its phases), for a caller that asked; a no-op otherwise. */
  progress: Progress;
}

export interface CommandDef<S extends TObject = TObject, R extends TSchema = TSchema> {
  name: string;
  category: Category;
  description: string;
  /** The args' JSON Schema; ranges are enforced (BAD_ARGS), asset ids and coordinates are not. */
  args: S;
  /** The result's schema: documentation and the typed client's source, not enforced at runtime. */
  result: R;
  /** decisions §4: the permission the command needs (checked in spec step 4). */
  permission: PermissionRule;
  /** spec rule 3: the game functions the command binds to; a game lacking one disables it. */
  binds: readonly GameFunctionName[];
  /** spec: whether the command's first step runs on the main (game) thread. */
  runsOnGameThread: boolean;
  /** decisions §4: gated by the turn in turn-based sessions. Default: categories action and control. */
  turnGated?: boolean;
  /**
   * decisions §13: whether the answer of a keyed request is kept for its retries: only commands that
   * change something. Default: categories action and control.
   */
  keepsAnswer?: boolean;
  /** Game-thread commands: the frame step. May return a promise settled by later frames (pulses). */
  frame?: (env: FrameEnv<Static<S>>) => unknown;
  /** Frame phases a pool command queues by name (generate_world's world swap). */
  phases?: Record<string, (env: FrameEnv<Static<S>>, input: never) => unknown>;
  /**
   * Pool commands: a phase (of `phases`) the main loop queues when the worker running the command
   * dies or is terminated before answering, to undo what earlier phases left in the world.
   */
  onWorkerLost?: string;
  /** Pool commands: the whole command. Game-thread commands: an optional step after the frame. */
  pool?: (env: PoolEnv<Static<S>>, frameValue: never) => unknown;
  /**
   * Whether the game may price this command for the caller's kingdom (GameModule.priceOf and spend):
   * asked before the frame step (over budget: GAME_REJECTED, nothing runs) and paid once it ran.
   * Default: the action category. A command that runs other commands (batch) leaves it to them.
   */
  priced?: boolean;
  /** decisions §8: the items it counts against a frame's 256 (batch: its items); default 1. */
  frameItems?: (args: Static<S>) => number;
  /** decisions §8: why these args cannot be a batch item though the command can (pulsed invoke_power), or null. */
  batchRefusal?: (args: Static<S>) => string | null;
  // The hooks below are methods, whose parameters TypeScript checks both ways, so a command typed by
  // its own args and result still fits CommandDef.
  /**
   * spec step 3, past the schema: the command's own check of its args, run once on the main loop
   * before admission, so a request it refuses never waits for a slot (batch: its items).
   */
  precheck?(args: Static<S>, caller: CallerContext, checks: CheckContext): Failure | null;
  /**
   * spec step 4, past the command's own permission and turn: run with the slot held, just before
   * the run, for what may change while a request waits for a slot (batch: its items' permissions
   * and turn).
   */
  checkAccess?(args: Static<S>, caller: CallerContext, checks: CheckContext): Failure | null;
  /**
   * decisions §11: whether an answer of 200 keeps the caller's turn (restarts its turn timer).
   * Default: the command is turn-gated.
   */
  keepsTurn?(args: Static<S>, result: Static<R>, checks: CheckContext): boolean;
}

/** Identity with inference; fills the defaults every command shares. */
export function defineCommand<S extends TObject, R extends TSchema>(def: CommandDef<S, R>): CommandDef<S, R> {
  const priced = def.priced ?? def.category === 'action';
  return {
    ...def,
    turnGated: def.turnGated ?? (def.category === 'action' || def.category === 'control'),
    priced,
    ...(priced && def.frame && { frame: pricedFrame(def.name, def.frame) }),
  };
}

/**
 * A frame step the game may price: the caller's claimed kingdom pays (a god, or a caller with no
 * claim, pays nothing). The price is asked before the step, so a kingdom that cannot pay changes
 * nothing; it is paid once the step ran without throwing (a pulsed run: once it started, for all its
 * pulses, as quoted).
 */
function pricedFrame<A>(name: string, frame: (env: FrameEnv<A>) => unknown): (env: FrameEnv<A>) => unknown {
  return (env) => {
    const { game, caller } = env;
    const kingdomId = caller.role === 'god' ? null : caller.claimedKingdomId;
    if (kingdomId === null || typeof game.priceOf !== 'function' || typeof game.spend !== 'function') return frame(env);
    const quote = game.priceOf(kingdomId, name, env.args as Readonly<Record<string, unknown>>);
    if (quote.refusal !== null) throw gameRejected(quote.refusal, 'OverBudget');
    const value = frame(env);
    if (quote.price > 0) game.spend(kingdomId, quote.price);
    return value;
  };
}

/** decisions §13: whether a keyed request of this command keeps its answer (a read or meta command simply runs again). */
export function keepsAnswer(def: CommandDef): boolean {
  return def.keepsAnswer ?? (def.category === 'action' || def.category === 'control');
}

/** Args of a command that takes none: `{}` only. */
export const NoArgs = Type.Object({}, { additionalProperties: false });

/** The descriptor schema: the args schema as JSON Schema 2020-12. */
export function describeSchema(schema: TSchema): Record<string, unknown> {
  return { $schema: JSON_SCHEMA_DRAFT, ...(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>) };
}
