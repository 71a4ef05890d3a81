import type { BridgeError, Outcome } from '../errors/bridge-error.ts';
import type { CommandDef } from '../commands/define.ts';
import type { CallerContext } from '../shared/caller.ts';

/**
 * The session state (agents, turn, inboxes). The main loop owns it; pool threads reach it through
 * `call`, never a copy (decisions §4).
 */
export interface Session {
  readonly multiAgent: boolean;
  readonly scenario: string;
  readonly agentCount: number;
  /** spec step 4, after the permission check: 409 TURN_NOT_YOURS or null. */
  checkTurn(def: CommandDef, caller: CallerContext): BridgeError | null;
  /** Note that an agent was seen (session_info.last_seen_utc). */
  touch(caller: CallerContext): void;
  /** A session call from a pool command. */
  call(name: string, input: unknown, caller: CallerContext): Promise<Outcome<unknown>>;
}

/** Legacy single-agent mode: one synthetic god agent, no turns, no bus peers. */
export class LegacySession implements Session {
  readonly multiAgent = false;
  readonly scenario = 'sandbox';
  readonly agentCount = 1;
  lastSeen: string | null = null;

  checkTurn(): BridgeError | null {
    return null;
  }

  touch(): void {
    this.lastSeen = new Date().toISOString();
  }

  async call(name: string): Promise<Outcome<unknown>> {
    return { ok: false, code: 'BAD_ARGS', message: `session call '${name}' is not available in legacy mode` };
  }
}
