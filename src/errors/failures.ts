// One factory per code of the error table, each giving the plain Failure: the form that crosses
// threads and that http's fail() sends. A code's shape (which of `exception` and `did_you_mean` it
// carries) is written here once; code that throws uses errorOf(xFailure(...)) or one of the
// BridgeError shortcuts of bridge-error.ts, which are built on these. No other file writes a failure
// literal (test/errors/failures.test.ts checks).
import type { ErrorCode } from './codes.ts';

/** spec: error.exception, present for game crashes and game rejections. */
export interface ExceptionInfo {
  type: string;
  message: string;
  stack_top: string;
}

/** The plain form of an error that crosses postMessage or piscina (classes do not survive). */
export interface Failure {
  ok: false;
  code: ErrorCode;
  message: string;
  exception?: ExceptionInfo;
  did_you_mean?: string[];
}

export type Outcome<T> = { ok: true; value: T } | Failure;

/** Any code's failure; `exception` and `did_you_mean` only when given, so absent keys stay absent. */
export function failureWith(code: ErrorCode, message: string, exception?: ExceptionInfo, didYouMean?: string[]): Failure {
  const failure: Failure = { ok: false, code, message };
  if (exception) failure.exception = exception;
  if (didYouMean) failure.did_you_mean = didYouMean;
  return failure;
}

/** 404: no such command (or endpoint); with the nearest enabled names when there are some. */
export function unknownCommandFailure(message: string, didYouMean?: string[]): Failure {
  return failureWith('UNKNOWN_COMMAND', message, undefined, didYouMean);
}

/** 400: the request or its args are malformed; with suggestions when a listed value is unknown. */
export function badArgsFailure(message: string, didYouMean?: string[]): Failure {
  return failureWith('BAD_ARGS', message, undefined, didYouMean);
}

/** 400: an id this game build does not have; spec: always with did_you_mean (empty for none). */
export function unknownAssetFailure(message: string, didYouMean: string[]): Failure {
  return failureWith('UNKNOWN_ASSET', message, undefined, didYouMean);
}

export function outOfBoundsFailure(message: string): Failure {
  return failureWith('OUT_OF_BOUNDS', message);
}

/** 422: the game refused on its own terms; spec: with exception. */
export function gameRejectedFailure(message: string, exception: ExceptionInfo): Failure {
  return failureWith('GAME_REJECTED', message, exception);
}

/** 500: an exception escaped the game or the bridge; spec: with exception. */
export function gameCrashFailure(message: string, exception: ExceptionInfo): Failure {
  return failureWith('GAME_CRASH', message, exception);
}

export function mainThreadTimeoutFailure(message: string): Failure {
  return failureWith('MAIN_THREAD_TIMEOUT', message);
}

export function unauthorizedFailure(message: string): Failure {
  return failureWith('UNAUTHORIZED', message);
}

export function disabledFailure(message: string): Failure {
  return failureWith('DISABLED', message);
}

/** 503; fail() adds Retry-After: 1 (decisions §5). */
export function busyFailure(message: string): Failure {
  return failureWith('BUSY', message);
}

export function permissionDeniedFailure(message: string): Failure {
  return failureWith('PERMISSION_DENIED', message);
}

export function factionScopeViolationFailure(message: string): Failure {
  return failureWith('FACTION_SCOPE_VIOLATION', message);
}

export function turnNotYoursFailure(message: string): Failure {
  return failureWith('TURN_NOT_YOURS', message);
}
