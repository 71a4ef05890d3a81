// invoke_power with pulses > 1: one per-frame job that applies one pulse a frame, moving from
// (x, y) to (x2, y2), and settles the command's promise when it ends (spec: a pulsed call holds its
// slot up to 25 s and registers one per-frame job).
import { errorOf } from '../../errors/bridge-error.ts';
import { busyFailure } from '../../errors/failures.ts';
import type { Timings } from '../../limits.ts';
import type { CallerContext } from '../../shared/caller.ts';
import type { FrameJob, FrameJobs } from '../../shared/frame.ts';
import type { GameModule } from '../../shared/game-module.ts';
import { kTurnHolder, kWorldEpoch, type SharedState } from '../../shared/layout.ts';
import type { Progress } from '../../shared/progress.ts';

export type StopReason = 'turn_ended' | 'world_changed' | 'deadline' | 'error';

export interface PulsePlan {
  powerId: string;
  x: number;
  y: number;
  x2: number;
  y2: number;
  radius: number | null;
  pulses: number;
}

export interface PulsedResult {
  power_id: string;
  pulses: number;
  pulses_applied: number;
  accepted_count: number;
  stopped?: StopReason;
  /** With stopped = 'error': what the game threw. */
  error_message?: string;
}

export interface PulseEnv {
  game: Pick<Required<GameModule>, 'invokePower'>;
  caller: CallerContext;
  jobs: Pick<FrameJobs, 'register' | 'capacity'>;
  shared: SharedState;
  timings: Pick<Timings, 'pulsedRunBudgetMs'>;
  /** decisions §14: pulses applied of pulses, for a caller that asked. */
  progress?: Progress;
}

/** The tile of pulse `index` (0-based) on the straight line from (x, y) to (x2, y2). */
export function pulsePosition(plan: PulsePlan, index: number): { x: number; y: number } {
  const progress = plan.pulses <= 1 ? 0 : index / (plan.pulses - 1);
  return { x: Math.round(plan.x + (plan.x2 - plan.x) * progress), y: Math.round(plan.y + (plan.y2 - plan.y) * progress) };
}

/**
 * Registers the run and returns the promise its job settles. Throws BUSY (nothing reached the
 * world) when the registry already holds its 32 jobs. The first pulse lands in the frame that
 * registered the job (jobs step after the drain), then one a frame.
 */
export function startPulsedRun(env: PulseEnv, plan: PulsePlan, now: () => number = () => performance.now()): Promise<PulsedResult> {
  const { game, caller, shared, timings } = env;
  const control = shared.control;
  const epoch = Atomics.load(control, kWorldEpoch);
  const startedAt = now();
  // decisions §4: god bypasses the turn gate, so its runs never stop on a turn change.
  const watchTurn = caller.turnBased && caller.role !== 'god';
  let applied = 0;
  let accepted = 0;
  let settled = false;
  let settle!: (result: PulsedResult) => void;
  const done = new Promise<PulsedResult>((resolve) => (settle = resolve));

  const finish = (stopped?: StopReason, message?: string): true => {
    if (!settled) {
      settled = true;
      const result: PulsedResult = { power_id: plan.powerId, pulses: plan.pulses, pulses_applied: applied, accepted_count: accepted };
      if (stopped) result.stopped = stopped;
      if (message !== undefined) result.error_message = message;
      settle(result);
    }
    return true;
  };

  const job: FrameJob = {
    step() {
      // Checked before every pulse, so a pulse never lands in a world or a turn it was not meant for.
      if (watchTurn && Atomics.load(control, kTurnHolder) !== caller.agentIndex + 1) return finish('turn_ended');
      if (Atomics.load(control, kWorldEpoch) !== epoch) return finish('world_changed');
      if (now() - startedAt >= timings.pulsedRunBudgetMs) return finish('deadline');
      const at = pulsePosition(plan, applied);
      try {
        if (game.invokePower(plan.powerId, at.x, at.y, plan.radius)) accepted++;
      } catch (err) {
        return finish('error', err instanceof Error ? err.message : String(err));
      }
      applied++;
      env.progress?.(applied, plan.pulses);
      return applied >= plan.pulses ? finish() : false;
    },
    cancel() {
      finish('error', 'the bridge is shutting down');
    },
  };

  if (!env.jobs.register(job)) {
    throw errorOf(
      busyFailure(
        `the per-frame job registry is full (${env.jobs.capacity} jobs): too many pulsed invoke_power runs at once; nothing reached the world, retry when one ends`,
      ),
    );
  }
  return done;
}
