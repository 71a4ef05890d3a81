// decisions §8: a batch's items, run back to back inside one frame. Each item gets the frame a lone
// command would get; an item that throws is its own failure (GAME_CRASH for an exception of the
// game), and with stop_on_error the items after it are skipped, never run.
import type { Outcome } from '../../../errors/bridge-error.ts';
import type { Progress } from '../../../shared/progress.ts';
import type { BatchArgs, BatchItemResult, BatchResult } from './schema.ts';

/**
 * `runItem` runs one item's frame step and never throws. An item whose step returns a promise (an
 * embedder's command that settles later) still ran in this frame; only the answer waits for it.
 * decisions §14: `progress` hears items run of items after each one that ran.
 */
export function runBatch(
  request: BatchArgs,
  runItem: (name: string, args: Record<string, unknown>) => Outcome<unknown> | Promise<Outcome<unknown>>,
  progress?: Progress,
): BatchResult | Promise<BatchResult> {
  const stopOnError = request.stop_on_error ?? true;
  const total = request.commands.length;
  const outcomes: Array<Outcome<unknown> | Promise<Outcome<unknown>> | null> = [];
  let stopped = false;
  for (const item of request.commands) {
    if (stopped) {
      outcomes.push(null);
      continue;
    }
    const outcome = runItem(item.name, item.args ?? {});
    outcomes.push(outcome);
    progress?.(outcomes.length, total);
    if (stopOnError && !(outcome instanceof Promise) && !outcome.ok) stopped = true;
  }
  if (!outcomes.some((o) => o instanceof Promise)) return tally(outcomes as Array<Outcome<unknown> | null>);
  return Promise.all(outcomes).then(tally);
}

function tally(outcomes: ReadonlyArray<Outcome<unknown> | null>): BatchResult {
  const results: BatchItemResult[] = [];
  let completed = 0;
  let failed = 0;
  let skipped = 0;
  for (const outcome of outcomes) {
    if (outcome === null) {
      skipped++;
      results.push({ ok: false, skipped: true });
    } else if (outcome.ok) {
      completed++;
      results.push({ ok: true, result: outcome.value });
    } else {
      failed++;
      const { ok: _ok, ...error } = outcome;
      results.push({ ok: false, error });
    }
  }
  return { results, completed, failed, skipped };
}
