import { ERROR_STATUS } from '../errors/codes.ts';
import type { Failure } from '../errors/bridge-error.ts';

/** spec: the error envelope. `did_you_mean` sits inside `error`, beside `code` (decisions §5). */
export function errorBody(failure: Failure, command: string, args: unknown): string {
  const error: Record<string, unknown> = {
    code: failure.code,
    message: failure.message,
    command,
    args: args ?? {},
  };
  if (failure.did_you_mean) error.did_you_mean = failure.did_you_mean;
  if (failure.exception) error.exception = failure.exception;
  return JSON.stringify({ ok: false, error });
}

export function statusOf(failure: Failure): number {
  return ERROR_STATUS[failure.code];
}

/** spec: the success envelope, serialised once. */
export function successBody(result: unknown, tick: number): string {
  return `{"ok":true,"result":${JSON.stringify(result ?? {})},"tick":${tick}}`;
}
