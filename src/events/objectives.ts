// decisions §7: objective_changed. Objectives are judged against the kingdoms of the live world,
// which only the game thread can list, so the main loop asks for them on a timer (Timings
// objectivePollMs, 1 s by default: one frame call a second) rather than after every frame, and
// emits an event only when an objective's status (pending, done, failed) changes. The first look
// sets the baseline and emits nothing.
import type { Logger } from 'pino';
import type { Outcome } from '../errors/bridge-error.ts';

interface ObjectivesAnswer {
  agents: Array<{
    agent_id: string;
    claimed_kingdom_id: number | null;
    objectives: Array<{ id: string; label: string; kind: string; status: string; progress: number | null }>;
  }>;
}

export interface ObjectiveWatch {
  stop(): void;
}

export function watchObjectives(options: {
  intervalMs: number;
  /** One frame call: the kingdoms of the live world. */
  kingdoms(): Promise<Outcome<unknown>>;
  /** The session judges every agent's objectives against them. */
  judge(kingdoms: unknown): Promise<Outcome<unknown>>;
  emit(fields: Record<string, unknown>, kingdomIds: readonly number[]): void;
  log: Logger;
}): ObjectiveWatch {
  const last = new Map<string, string>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  async function look(): Promise<void> {
    const kingdoms = await options.kingdoms();
    if (!kingdoms.ok || stopped) return;
    const judged = await options.judge(kingdoms.value);
    if (!judged.ok || stopped) return;
    const seen = new Set<string>();
    for (const agent of (judged.value as ObjectivesAnswer).agents) {
      for (const objective of agent.objectives) {
        const key = `${agent.agent_id}\0${objective.id}`;
        seen.add(key);
        const previous = last.get(key);
        last.set(key, objective.status);
        if (previous === undefined || previous === objective.status) continue;
        options.emit(
          {
            agent_id: agent.agent_id,
            objective_id: objective.id,
            label: objective.label,
            objective_kind: objective.kind,
            status: objective.status,
            previous,
            progress: objective.progress,
          },
          agent.claimed_kingdom_id === null ? [] : [agent.claimed_kingdom_id],
        );
      }
    }
    for (const key of last.keys()) if (!seen.has(key)) last.delete(key);
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      look()
        .catch((err: unknown) => options.log.warn({ err: (err as Error).message }, 'objective_changed: objectives could not be judged'))
        .finally(schedule);
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
