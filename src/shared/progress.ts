// decisions §14: how far a running command got, told to its caller alone. A command reports
// through the `progress` of its frame or pool environment; the report crosses to the main loop with
// the command's own messages (the dispatcher port, or the pool task's RPC port), and the main loop
// hands it to the request's sink, which the event layer delivers (GET /events, kind `progress`).
import { LIMITS } from '../limits.ts';
import type { CallerContext } from './caller.ts';

/** One report: `done` of `total` (ticks, pulses, items), or phase number `done` of `total` named `phase`. */
export interface ProgressReport {
  done: number;
  total: number;
  phase?: string;
  /** The world tick when it was made. */
  tick: number;
  /** sharedNow() when it was made: reports of one command are spaced by it, on every thread alike. */
  at: number;
}

/** A command's hook: how far it got. A no-op for a request that asked for no progress. */
export type Progress = (done: number, total: number, phase?: string) => void;

/** Where one request's reports go, on the main loop. */
export type ProgressSink = (report: ProgressReport) => void;

/** The progress of a request that asked for none: it costs a call and nothing else. */
export const noProgress: Progress = () => {};

/**
 * A command's progress, spaced at least `intervalMs` apart (decisions §14: at most 10 a second): the
 * first report goes at once, a later one only once the interval has passed since the last sent.
 * What is dropped is only an intermediate figure; the next report carries a newer one.
 */
export function spacedProgress(
  send: (report: ProgressReport) => void,
  now: () => number,
  tick: () => number,
  intervalMs: number = LIMITS.progressIntervalMs,
): Progress {
  let last = Number.NEGATIVE_INFINITY;
  return (done, total, phase) => {
    const at = now();
    if (at - last < intervalMs) return;
    last = at;
    const report: ProgressReport = { done, total, tick: tick(), at };
    if (phase !== undefined) report.phase = phase;
    send(report);
  };
}

/** One request's progress on the main loop: its sink, and close() once its answer is made. */
export interface OpenProgress {
  report: ProgressSink;
  /** The answer is made: later reports are dropped (decisions §14: none after the answer). */
  close(): void;
}

/** Where POST /cmd's progress goes (the event layer's GET /events streams of the calling agent). */
export interface ProgressChannel {
  open(caller: CallerContext, token: string, command: string): OpenProgress;
}

// decisions §14: what a client may name its reports by; it is echoed into an event, so no quotes,
// spaces or control characters (the unreserved characters of a URI).
const TOKEN = /^[A-Za-z0-9._~-]+$/;

/** Why `token` is not a usable Progress-Token, or null. */
export function progressTokenProblem(token: string): string | null {
  if (token.length > LIMITS.progressTokenMaxLength || !TOKEN.test(token)) {
    const shown = token.length > 64 ? `${token.length} characters` : `'${token.replace(/[^\x20-\x7e]/g, '?')}'`;
    return `Progress-Token must be 1 to ${LIMITS.progressTokenMaxLength} characters of A-Z a-z 0-9 . _ ~ - (got ${shown}); a UUID is a good token`;
  }
  return null;
}
