// decisions §14: POST /cmd's progress channel. Each request with a Progress-Token opens one; its
// reports reach the hub at most one per 100 ms (spaced by when they were made, on whichever thread:
// a game-thread command with a pool step reports from both) and none once its answer is made.
import { LIMITS } from '../limits.ts';
import type { CallerContext } from '../shared/caller.ts';
import type { OpenProgress, ProgressChannel, ProgressReport } from '../shared/progress.ts';

export function progressChannel(deliver: (caller: CallerContext, token: string, command: string, report: ProgressReport) => void): ProgressChannel {
  return {
    open(caller, token, command): OpenProgress {
      let open = true;
      let last = Number.NEGATIVE_INFINITY;
      return {
        report(report) {
          if (!open || report.at - last < LIMITS.progressIntervalMs) return;
          last = report.at;
          deliver(caller, token, command, report);
        },
        close() {
          open = false;
        },
      };
    },
  };
}
