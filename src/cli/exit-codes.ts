// gcb's exit codes: one table. Every error envelope exits non-zero with a code of its own, grouped
// by what the caller should do about it (1x: fix the request, 2x: who is asking, 3x: try later,
// 4x: the game said no or broke).
import { constants } from 'node:os';
import type { ErrorCode } from '../errors/codes.ts';

export const EXIT = {
  OK: 0,
  /** An unexpected failure of gcb itself. */
  INTERNAL: 1,
  /** A bad flag, a bad key=value or --json, a missing argument (and every startup refusal of `gcb serve`). */
  USAGE: 2,
  /** No bridge.toml, no token, a URL that is not one. */
  CONFIG: 3,
  /** Nothing answered at the URL, no answer in time, or what answered is not the bridge. */
  UNREACHABLE: 4,
  /** gcb replay: the record cannot or must not be replayed (missing, cut short, another format or version, not JSON, a command no record holds, past a bound). */
  RECORD: 5,
  /** gcb replay: the replay differs from its record (a hash or an answer's code). */
  DIFFERS: 6,
} as const;

export const EXIT_BY_CODE = {
  BAD_ARGS: 10,
  UNKNOWN_COMMAND: 11,
  UNKNOWN_ASSET: 12,
  OUT_OF_BOUNDS: 13,
  UNAUTHORIZED: 20,
  PERMISSION_DENIED: 21,
  FACTION_SCOPE_VIOLATION: 22,
  TURN_NOT_YOURS: 23,
  BUSY: 30,
  DISABLED: 31,
  MAIN_THREAD_TIMEOUT: 32,
  GAME_REJECTED: 40,
  GAME_CRASH: 41,
} as const satisfies Record<ErrorCode, number>;

/** A run ended by a signal exits as a shell reports one: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function signalExit(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

/** The table as `gcb --help` and docs/cli.md show it. */
export function exitCodeTable(): string {
  const rows: Array<[number, string]> = [
    [EXIT.OK, 'ok'],
    [EXIT.INTERNAL, 'gcb itself failed unexpectedly'],
    [EXIT.USAGE, 'bad flags or args (gcb serve: any startup refusal, as npm start)'],
    [EXIT.CONFIG, 'no bridge.toml or no token (see --config-dir, --url, GCB_TOKEN)'],
    [EXIT.UNREACHABLE, 'no bridge answered at the URL'],
    [EXIT.RECORD, 'gcb replay: the record cannot or must not be replayed (cut short, another version, a command no record holds, past a bound)'],
    [EXIT.DIFFERS, 'gcb replay: the replay differs from the record (the first tick and both hashes are printed)'],
    ...Object.entries(EXIT_BY_CODE).map(([code, exit]): [number, string] => [exit, code]),
    [signalExit('SIGINT'), 'gcb replay: interrupted by SIGINT (Ctrl-C); its own bridge and temporary dir are gone'],
    [signalExit('SIGTERM'), 'gcb replay: interrupted by SIGTERM'],
  ];
  return rows.map(([exit, what]) => `  ${String(exit).padStart(2)}  ${what}`).join('\n');
}
