import { basename, dirname, relative, sep } from 'node:path';
import { distance } from 'fastest-levenshtein';
import { LIMITS } from '../limits.ts';
import { PACKAGE } from '../package-root.ts';
import { ERROR_STATUS, isErrorCode, type ErrorCode } from './codes.ts';
import {
  badArgsFailure,
  failureWith,
  gameCrashFailure,
  gameRejectedFailure,
  outOfBoundsFailure,
  unknownAssetFailure,
  type ExceptionInfo,
  type Failure,
} from './failures.ts';

export type { ExceptionInfo, Failure, Outcome } from './failures.ts';

/** The one error class of the bridge. Threads never throw it across a boundary: see toFailure(). */
export class BridgeError extends Error {
  readonly code: ErrorCode;
  readonly exception: ExceptionInfo | undefined;
  readonly didYouMean: string[] | undefined;

  constructor(code: ErrorCode, message: string, extra: { exception?: ExceptionInfo; didYouMean?: string[] } = {}) {
    super(message);
    this.name = 'BridgeError';
    this.code = code;
    this.exception = extra.exception;
    this.didYouMean = extra.didYouMean;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

// The shortcuts game code throws (game-control-bridge/game), each the error of its code's failure.

export function badArgs(message: string): BridgeError {
  return errorOf(badArgsFailure(message));
}

export function outOfBounds(message: string): BridgeError {
  return errorOf(outOfBoundsFailure(message));
}

/** For game modules: throw gameRejected('why') to refuse an action logically (422 GAME_REJECTED). */
export function gameRejected(message: string, type = 'GameRejected'): BridgeError {
  // The probe's top frame is the game code that refused, not this helper.
  const probe = new Error(message);
  Error.captureStackTrace(probe, gameRejected);
  return errorOf(gameRejectedFailure(message, describeException(probe, type)));
}

/**
 * UNKNOWN_ASSET with up to 5 suggestions from `known`, nearest first (spec: did_you_mean). decisions
 * §11: suggestions only for a value of at most 64 characters (no id is longer, and Levenshtein
 * against the catalogue costs length × length); a longer one is shown cut, with none.
 */
export function unknownAsset(field: string, value: string, known: readonly string[]): BridgeError {
  const plausible = value.length <= LIMITS.idMaxLength;
  const shown = plausible ? value : `${value.slice(0, LIMITS.idMaxLength)}… (${value.length} characters)`;
  return errorOf(unknownAssetFailure(`${field} '${shown}' does not exist in this game build`, plausible ? nearest(value, known, 5) : []));
}

export function describeException(err: unknown, type?: string): ExceptionInfo {
  if (err instanceof Error) {
    const frames = (err.stack ?? '').split('\n').slice(1);
    const top = frames.find((line) => line.trim().startsWith('at '))?.trim() ?? '';
    return { type: type ?? err.constructor?.name ?? err.name, message: withoutMachinePaths(err.message), stack_top: withoutMachinePaths(top) };
  }
  return { type: typeof err, message: withoutMachinePaths(String(err)), stack_top: '' };
}

// An absolute path of two segments or more (a file URL's path included), not part of a URL or a
// relative path: `/a/b.ts`, not `x/y`, `1/2`, `//host/` or `/health`.
const ABSOLUTE_PATH = /(?<![\w.:/~-])(?:file:\/\/)?(\/(?:[\w.@+~-]+\/)+[\w.@+~-]*)/g;

/**
 * decisions §11: no answer names an absolute path of the machine. Paths inside the package become
 * relative to its root (`src/game/world.ts:12:3`); any other keeps its folder and file name only
 * (`…/game/world.ts`), enough for a game author to find the line, nothing about the machine.
 */
export function withoutMachinePaths(text: string): string {
  if (!text.includes('/')) return text;
  return text.replace(ABSOLUTE_PATH, (_match, path: string) => {
    const inside = relative(PACKAGE.root, path);
    if (!inside.startsWith('..') && !inside.startsWith(sep)) return inside;
    return `…/${basename(dirname(path))}/${basename(path)}`;
  });
}

/**
 * Turns anything thrown by a command or a game into a Failure. Errors that carry one of the
 * game-raisable codes keep it (a game module may not share our class, so the code is duck-typed);
 * everything else is GAME_CRASH with the exception's type, message and top frame.
 */
export function toFailure(err: unknown): Failure {
  if (err instanceof BridgeError) return failureOf(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && isErrorCode(code) && RAISABLE.has(code)) {
    // Another copy of this module (a game importing game-control-bridge/game from sources while
    // the bridge runs from dist/) builds errors our instanceof does not know: keep their exception.
    let exception: ExceptionInfo | undefined;
    if (code === 'GAME_REJECTED') {
      const own = (err as { exception?: unknown }).exception;
      exception = isExceptionInfo(own) ? own : describeException(err);
    }
    const suggestions = (err as { didYouMean?: unknown }).didYouMean;
    return failureWith(code, err.message, exception, Array.isArray(suggestions) ? suggestions.map(String) : undefined);
  }
  const exception = describeException(err);
  return gameCrashFailure(`${exception.type}: ${exception.message}`, exception);
}

function isExceptionInfo(value: unknown): value is ExceptionInfo {
  const info = value as Partial<ExceptionInfo> | null | undefined;
  return typeof info?.type === 'string' && typeof info.message === 'string' && typeof info.stack_top === 'string';
}

const RAISABLE = new Set<ErrorCode>(['BAD_ARGS', 'UNKNOWN_ASSET', 'OUT_OF_BOUNDS', 'GAME_REJECTED', 'BUSY', 'TURN_NOT_YOURS', 'PERMISSION_DENIED']);

export function failureOf(err: BridgeError): Failure {
  return failureWith(err.code, err.message, err.exception, err.didYouMean);
}

/** The throwable form of a failure: `throw errorOf(busyFailure('...'))`. */
export function errorOf(failure: Failure): BridgeError {
  const extra: { exception?: ExceptionInfo; didYouMean?: string[] } = {};
  if (failure.exception) extra.exception = failure.exception;
  if (failure.did_you_mean) extra.didYouMean = failure.did_you_mean;
  return new BridgeError(failure.code, failure.message, extra);
}

/** The `count` entries of `known` nearest to `value` by Levenshtein distance; ties keep catalogue order. */
export function nearest(value: string, known: readonly string[], count: number): string[] {
  const needle = value.toLowerCase();
  return known
    .map((id, index) => ({ id, index, d: distance(needle, id.toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.index - b.index)
    .slice(0, count)
    .map((entry) => entry.id);
}
