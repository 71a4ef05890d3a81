// The client's errors. An error envelope from the bridge is always a BridgeCallError carrying the
// envelope's code, HTTP status, did_you_mean and exception; the other two classes say that no
// envelope came back at all (nothing answered, or the answer was not the bridge's) or that the
// client could not even find the bridge (no token, no bridge.toml).
import type { ExceptionInfo } from '../errors/bridge-error.ts';
import { isErrorCode, type ErrorCode } from '../errors/codes.ts';

export type { ErrorCode, ExceptionInfo };

/** The `error` object of the spec's error envelope. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  command: string;
  args: Record<string, unknown>;
  exception?: ExceptionInfo;
  did_you_mean?: string[];
}

/** An error envelope (`ok: false`) from the bridge. */
export class BridgeCallError extends Error {
  /** One of the spec's codes (UNKNOWN_COMMAND, BAD_ARGS, ..., TURN_NOT_YOURS). */
  readonly code: ErrorCode;
  /** The HTTP status the bridge answered with. */
  readonly status: number;
  /** error.command: the command name ("" for a 401, which reads no body). */
  readonly command: string;
  /** error.args: the args as the bridge received them. */
  readonly args: Record<string, unknown>;
  /** UNKNOWN_ASSET: up to 5 suggested ids, nearest first. */
  readonly didYouMean: string[] | undefined;
  /** GAME_REJECTED and GAME_CRASH: the exception's type, message and top stack frame. */
  readonly exception: ExceptionInfo | undefined;
  /** The response's X-Request-Id, to find the bridge's log line. */
  readonly requestId: string | undefined;
  /** How many requests were made (more than 1 only after BUSY retries). */
  readonly attempts: number;
  /** The `error` object exactly as the bridge sent it. */
  readonly body: ErrorBody;

  constructor(body: ErrorBody, status: number, extra: { requestId?: string | undefined; attempts?: number } = {}) {
    super(body.message);
    this.name = 'BridgeCallError';
    this.code = body.code;
    this.status = status;
    this.command = body.command;
    this.args = body.args;
    this.didYouMean = body.did_you_mean;
    this.exception = body.exception;
    this.requestId = extra.requestId;
    this.attempts = extra.attempts ?? 1;
    this.body = body;
  }

  /** The envelope, as the bridge sent it. */
  toJSON(): { ok: false; error: ErrorBody } {
    return { ok: false, error: this.body };
  }
}

/** No envelope came back: the bridge is not running there, did not answer in time, or something else answered. */
export class BridgeConnectionError extends Error {
  readonly url: string;

  constructor(message: string, url: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BridgeConnectionError';
    this.url = url;
  }
}

/** The client could not be set up: no token, no URL, an unreadable bridge.toml. */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}

/** The BridgeCallError of an error envelope `body`, or undefined when `body` is not one. */
export function callErrorOf(body: unknown, status: number, requestId: string | null, command: string): BridgeCallError | undefined {
  const error = isRecord(body) && body.ok === false ? body.error : undefined;
  if (!isRecord(error) || typeof error.code !== 'string' || !isErrorCode(error.code)) return undefined;
  const envelope: ErrorBody = {
    ...(error as unknown as ErrorBody),
    message: typeof error.message === 'string' ? error.message : error.code,
    command: typeof error.command === 'string' ? error.command : command,
    args: isRecord(error.args) ? error.args : {},
  };
  return new BridgeCallError(envelope, status, { requestId: requestId ?? undefined });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
