import { Type } from '@sinclair/typebox';
import { PERMISSIONS } from '../../auth/permissions.ts';
import { gameRejected } from '../../errors/bridge-error.ts';
import { LIMITS } from '../../limits.ts';
import type { GameModule } from '../../shared/game-module.ts';
import { defineCommand } from '../define.ts';

export const StepResult = Type.Object({
  tick_before: Type.Integer({ description: 'the tick before the first tick ran' }),
  tick: Type.Integer({ description: 'the tick reached' }),
  ticks: Type.Integer({ description: 'ticks run: as asked, or fewer with stopped' }),
  hash: Type.Optional(Type.String({ description: 'world_hash at the end (read_all callers only)' })),
  stopped: Type.Optional(
    Type.Union([
      Type.Literal('deadline', { description: 'the step reached its 25 s and stopped after the tick in progress' }),
      Type.Literal('yielded', {
        description: "the step ran [Game] step_slice_ms while another agent's command waited and gave way after the tick in progress; step again for the rest",
      }),
    ]),
  ),
});

export type StepStop = 'deadline' | 'yielded';

export const STEP_WHILE_RUNNING =
  'step runs only while the world is paused under the realtime clock; pause first, or start with --lockstep (clock = "lockstep") so the world moves only through step';

/** Under realtime: paused (or frozen by a window), so no frame moves the world while step does. */
function paused(game: GameModule): boolean {
  return game.getUiState?.().effective_paused ?? false;
}

export default defineCommand({
  name: 'step',
  category: 'control',
  description:
    'Run `ticks` simulation ticks back to back, as fast as the machine allows, and answer when they are done. Each ' +
    "tick's events go out as usual and pulsed invoke_power runs pulse once a tick. A step runs at most 25 s: one " +
    'that reaches it stops after the tick in progress and answers the ticks it ran with stopped "deadline". Once it ' +
    "has run [Game] step_slice_ms (100 ms) while another agent's command waits, it gives way the same way with " +
    'stopped "yielded": step again for the rest. Under the lockstep clock it is the only way the world moves; under ' +
    'realtime it runs only while the world is paused.',
  args: Type.Object(
    {
      ticks: Type.Integer({ minimum: LIMITS.stepTicksMin, maximum: LIMITS.stepTicksMax, description: 'ticks to run (no default)' }),
    },
    { additionalProperties: false },
  ),
  result: StepResult,
  permission: { all: ['advance_time'] },
  binds: ['advance', 'stateHash'],
  runsOnGameThread: true,
  // decisions §12: a step spans ticks; a batch runs in one frame.
  batchRefusal: () => 'step runs many ticks, and a batch runs in one frame: send step on its own',
  frame: ({ game, args, caller, clock, timings, progress, othersWaiting }) => {
    // Nothing has run yet: refused with the world untouched.
    if (clock.mode === 'realtime' && !paused(game)) throw gameRejected(STEP_WHILE_RUNNING, 'WorldRunning');
    const tickBefore = game.currentTick();
    const started = performance.now();
    let ran = 0;
    let stopped: StepStop | null = null;
    while (ran < args.ticks) {
      game.advance(1);
      ran++;
      // The tick's jobs, events and hooks before the next tick, as a frame would have them.
      clock.endTick();
      progress(ran, args.ticks);
      if (ran === args.ticks) break;
      const elapsed = performance.now() - started;
      if (elapsed >= timings.stepBudgetMs) stopped = 'deadline';
      // decisions §15: game-thread time is shared; the waiting commands run at the tick reached.
      else if (elapsed >= timings.stepSliceMs && othersWaiting()) stopped = 'yielded';
      if (stopped !== null) break;
    }
    const result: { tick_before: number; tick: number; ticks: number; hash?: string; stopped?: StepStop } = {
      tick_before: tickBefore,
      tick: game.currentTick(),
      ticks: ran,
    };
    // decisions §12: the digest is for read_all holders; a faction player gets the ticks alone.
    if ((caller.permissions & PERMISSIONS.read_all) !== 0) result.hash = game.stateHash();
    if (stopped !== null) result.stopped = stopped;
    return result;
  },
});
