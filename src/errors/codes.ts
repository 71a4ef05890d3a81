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
