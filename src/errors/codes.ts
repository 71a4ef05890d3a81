// spec: Errors. The one table of codes and statuses; the codes are exact and none is added.
export const ERROR_STATUS = {
  UNKNOWN_COMMAND: 404,
  BAD_ARGS: 400,
  UNKNOWN_ASSET: 400,
  OUT_OF_BOUNDS: 400,
  GAME_REJECTED: 422,
  GAME_CRASH: 500,
  MAIN_THREAD_TIMEOUT: 504,
  UNAUTHORIZED: 401,
  DISABLED: 503,
  BUSY: 503,
  PERMISSION_DENIED: 403,
  FACTION_SCOPE_VIOLATION: 403,
  TURN_NOT_YOURS: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/**
 * decisions §13: the statuses of a refusal (credential, body, name, args, permission, turn,
 * admission, kill switch): nothing reached the world. The rest (422, 500, 504) ran, or started to.
 */
export const REFUSAL_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 409, 503]);

/** Whether a failure of this code is a refusal: the command changed nothing. */
export function isRefusal(code: ErrorCode): boolean {
  return REFUSAL_STATUSES.has(ERROR_STATUS[code]);
}
