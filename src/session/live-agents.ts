// decisions §10: agents.json changed while the bridge runs. The watcher (config/agents-watch.ts)
// finds a new file; this applies it everywhere a credential counts: the session (agents, turn,
// bus), the credential table, the admission caps, the idempotency shares, event subscribers, and
// the health mirror.
import type { Logger } from 'pino';
import type { Admission } from '../admission/semaphore.ts';
import type { CredentialTable } from '../auth/credentials.ts';
import { agentsPath, type AgentsConfig } from '../config/agents.ts';
import { watchAgents, type AgentsWatch } from '../config/agents-watch.ts';
import type { IdempotencyStore } from '../idempotency/store.ts';
import type { CallerContext } from '../shared/caller.ts';
import { kAgentCount, kScenario } from '../shared/layout.ts';
import { SCENARIOS, type ScenarioName } from '../shared/scenarios.ts';
import type { Session } from './session.ts';

/** What a reload tells the event layer (events/hub.ts has it); declared here, as session/ sits below events/. */
export interface AgentEventSink {
  /** Every stream and waiter follows its agent's new context; one whose agent is gone is closed. */
  rebindCallers(current: (agentId: string) => CallerContext | null): void;
  emitReadAllOnly(kind: 'agents_reloaded' | 'agents_reload_failed', fields: Record<string, unknown>): void;
}

export function liveAgents(options: {
  configDir: string;
  agents: AgentsConfig | undefined;
  session: Session;
  credentials: CredentialTable;
  admission: Admission;
  /** decisions §13: each agent's share of the kept answers follows the agents. */
  idempotency: Pick<IdempotencyStore, 'setAgents'>;
  hub: AgentEventSink;
  control: Int32Array;
  maxConcurrent: number;
  intervalMs: number;
  log: Logger;
}): AgentsWatch {
  const { session, credentials, admission, idempotency, hub, control, log } = options;
  const agentIds = () => session.credentials.map((credential) => credential.caller.agentId);
  const mirror = () => {
    Atomics.store(control, kAgentCount, session.agentCount);
    Atomics.store(control, kScenario, SCENARIOS.indexOf(session.scenario as ScenarioName));
  };
  mirror();
  admission.setMaxSlots(session.maxSlots);
  idempotency.setAgents(agentIds());
  return watchAgents({
    path: options.agents?.path ?? agentsPath(options.configDir),
    multiAgent: session.multiAgent,
    initialText: options.agents?.text,
    maxConcurrent: options.maxConcurrent,
    intervalMs: options.intervalMs,
    log,
    onValid(config) {
      const summary = session.reload(config);
      // Order: credentials first, so no request authenticates against agents the session no
      // longer has; then the caps, then the subscribers (a removed agent's streams close).
      credentials.replace(session.credentials);
      admission.setMaxSlots(session.maxSlots);
      idempotency.setAgents(agentIds());
      hub.rebindCallers((agentId) => session.callerOf(agentId));
      mirror();
      log.info({ agents: config.path, ...summary }, `agents.json applied: ${session.agentCount} agents`);
      hub.emitReadAllOnly('agents_reloaded', { ...summary });
    },
    onInvalid(reason) {
      hub.emitReadAllOnly('agents_reload_failed', { reason });
    },
  });
}
