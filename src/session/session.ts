import type { Logger } from 'pino';
import { sha256, type Credential } from '../auth/credentials.ts';
import { ALL_PERMISSIONS, PERMISSIONS, ROLE_MASKS, type RoleName } from '../auth/permissions.ts';
import type { CommandDef } from '../commands/define.ts';
import { agentTokens, type AgentEntry, type AgentsConfig } from '../config/agents.ts';
import { badArgs, errorOf } from '../errors/bridge-error.ts';
import { permissionDeniedFailure, turnNotYoursFailure, type Failure } from '../errors/failures.ts';
import { LIMITS } from '../limits.ts';
import type { CallerContext } from '../shared/caller.ts';
import type { KingdomInfo } from '../shared/game-module.ts';
import { kTurnHolder } from '../shared/layout.ts';
import { MessageBus } from './bus.ts';
import { evaluateObjectives } from './objectives.ts';

/**
 * decisions §7: the session's events, handed to the event layer. `audience`: the agents that may
 * see it (a message goes to its sender and recipients only); undefined: everyone.
 */
export type SessionEventSink = (kind: 'turn_changed' | 'message', fields: Record<string, unknown>, audience?: readonly string[]) => void;

interface Agent {
  entry: AgentEntry | null;
  caller: CallerContext;
  lastSeen: number | null;
}

/** The rotation of a session with these agents: empty unless it is turn-based. */
function rotationOf(config: AgentsConfig | null): readonly string[] {
  return config?.turnBased ? config.turnOrder : [];
}

/** send_message's arguments, as the session takes them. */
export interface OutgoingMessage {
  /** An agent id, or "*" for everyone else. */
  to: string;
  content: string;
  kind: string;
}

/** What an agents.json reload changed (decisions §10: the agents_reloaded event). */
export interface ReloadSummary {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * The session state: agents, claims, the turn and the bus. The main loop owns it and calls its
 * methods; pool threads reach the few in session/pool-calls.ts through the pool's RPC (decisions
 * §4). The turn holder is mirrored in shared memory so the game thread can stop a pulsed run when
 * its caller's turn ends. decisions §10: `reload` applies a new agents.json; callers are rebuilt
 * (requests in flight keep the context they started with), while inboxes, the bus seq and the turn
 * of the agents that stay are kept.
 */
export class Session {
  readonly multiAgent: boolean;
  #scenario: string;
  #partialIntel: boolean;
  #turnBased: boolean;
  // Set by the constructor's #setAgents.
  #agents!: Agent[];
  #byId = new Map<string, Agent>();
  /** Agents by their stable index (CallerContext.agentIndex, the kTurnHolder mirror). */
  #byIndex = new Map<number, Agent>();
  #nextIndex = 0;
  readonly #bus: MessageBus;
  /** The rotation: agents.json's turn order in a turn-based session, empty in any other. */
  #rotation: readonly string[];
  #turnTimeoutMs: number | null;
  readonly #control: Int32Array;
  readonly #log: Logger;
  readonly #legacyToken: string | null;
  #credentials!: Credential[];
  /** The holder's index in the rotation. */
  #turn = 0;
  #turnTimer: NodeJS.Timeout | null = null;
  #kingdomOrder: number[] = [];
  #emit: SessionEventSink = () => {};

  /** Legacy mode (no agents.json): one synthetic god agent holding the bridge.toml token. */
  static legacy(token: string, control: Int32Array, log: Logger): Session {
    return new Session(null, token, control, log);
  }

  static multiAgent(config: AgentsConfig, control: Int32Array, log: Logger): Session {
    return new Session(config, null, control, log);
  }

  private constructor(config: AgentsConfig | null, legacyToken: string | null, control: Int32Array, log: Logger) {
    this.multiAgent = config !== null;
    this.#scenario = config?.scenario ?? 'sandbox';
    this.#partialIntel = config?.partialIntel ?? false;
    this.#turnBased = config?.turnBased ?? false;
    this.#turnTimeoutMs = config?.turnTimeoutMs ?? null;
    this.#control = control;
    this.#log = log;
    this.#legacyToken = legacyToken;
    this.#setAgents(config ? config.agents : [null]);
    this.#bus = new MessageBus(this.#agents.map((a) => a.caller.agentId));
    this.#rotation = rotationOf(config);
    this.#publishTurn();
  }

  get scenario(): string {
    return this.#scenario;
  }

  get partialIntel(): boolean {
    return this.#partialIntel;
  }

  get turnBased(): boolean {
    return this.#turnBased;
  }

  /** The credentials of every agent (one per token); in multi-agent mode the legacy token is not among them. */
  get credentials(): readonly Credential[] {
    return this.#credentials;
  }

  get agentCount(): number {
    return this.#agents.length;
  }

  /** decisions §10: per-agent max_slots, for the admission semaphore. */
  get maxSlots(): ReadonlyMap<string, number> {
    const caps = new Map<string, number>();
    for (const agent of this.#agents) if (agent.entry?.max_slots !== undefined) caps.set(agent.caller.agentId, agent.entry.max_slots);
    return caps;
  }

  /** The current context of an agent, or null once it is gone (event subscribers follow it). */
  callerOf(agentId: string): CallerContext | null {
    return this.#byId.get(agentId)?.caller ?? null;
  }

  /** The agent holding the turn, or null when the session is not turn-based. */
  get turnHolder(): string | null {
    return this.#rotation[this.#turn] ?? null;
  }

  /**
   * decisions §10: a new valid agents.json. Applies to every request that starts after it; the
   * inboxes, bus seq and turn of staying agents are kept; a removed turn holder passes the turn to
   * the next agent of the new order, as turn_advance would.
   */
  reload(config: AgentsConfig): ReloadSummary {
    if (!this.multiAgent) throw new Error('a legacy-mode session has no agents.json to reload');
    const before = new Map(this.#agents.map((agent) => [agent.caller.agentId, agent]));
    const flagsChanged = config.scenario !== this.#scenario || config.partialIntel !== this.#partialIntel || config.turnBased !== this.#turnBased;
    const oldHolder = this.turnHolder;
    const oldRotation = this.#rotation;
    const oldTurn = this.#turn;
    const oldTimeout = this.#turnTimeoutMs;
    this.#scenario = config.scenario;
    this.#partialIntel = config.partialIntel;
    this.#turnBased = config.turnBased;
    this.#turnTimeoutMs = config.turnTimeoutMs;
    this.#setAgents(config.agents);
    this.#bus.setAgents(this.#agents.map((a) => a.caller.agentId));
    this.#rotation = rotationOf(config);

    const summary: ReloadSummary = { added: [], removed: [], changed: [] };
    for (const agent of this.#agents) {
      const old = before.get(agent.caller.agentId);
      if (!old) summary.added.push(agent.caller.agentId);
      else if (flagsChanged || JSON.stringify(old.entry) !== JSON.stringify(agent.entry)) summary.changed.push(agent.caller.agentId);
    }
    for (const id of before.keys()) if (!this.#byId.has(id)) summary.removed.push(id);

    // The turn: kept by a holder still in the rotation; otherwise it goes to the next agent of the
    // old rotation, cyclically, that is in the new one; else (or with no holder) to the new
    // rotation's first. Searched as the old rotation from the holder on, then the whole of it again
    // (what the second pass repeats is not in the new rotation either).
    const candidates = [...oldRotation.slice(oldTurn), ...oldRotation].map((id) => this.#rotation.indexOf(id));
    this.#turn = candidates.find((index) => index >= 0) ?? 0;
    this.#publishTurn();
    const holder = this.turnHolder;
    if (holder === null || this.#turnTimeoutMs === null) this.stop();
    else if (holder !== oldHolder || this.#turnTimeoutMs !== oldTimeout || !this.#turnTimer) this.#armTurnTimer();
    if (holder !== oldHolder) {
      this.#log.info({ previous: oldHolder, next: holder }, 'turn passed: agents.json changed the rotation');
      this.#emit('turn_changed', { previous: oldHolder, next: holder, forced_by_god: false });
    }
    return summary;
  }

  /** Builds agents and credentials from entries; an agent that stays keeps its index and last-seen. */
  #setAgents(entries: ReadonlyArray<AgentEntry | null>): void {
    const previous = this.#byId;
    this.#agents = entries.map((entry) => {
      const agentId = entry?.id ?? 'legacy';
      const kept = previous.get(agentId);
      const role = (entry?.role ?? 'god') as RoleName;
      const permissions = entry?.permissions
        ? entry.permissions.reduce((mask, name) => mask | PERMISSIONS[name], 0)
        : entry
          ? ROLE_MASKS[role]
          : ALL_PERMISSIONS;
      // A fresh object: a request in flight keeps the context it started with.
      const caller: CallerContext = {
        agentId,
        agentIndex: kept?.caller.agentIndex ?? this.#nextIndex++,
        role,
        permissions,
        claimedKingdomId: this.#resolveClaim(entry?.kingdom_claim),
        scenario: this.#scenario,
        partialIntel: this.#partialIntel,
        turnBased: this.#turnBased,
        legacyMode: !this.multiAgent,
      };
      return { entry, caller, lastSeen: kept?.lastSeen ?? null };
    });
    this.#byId = new Map(this.#agents.map((agent) => [agent.caller.agentId, agent]));
    this.#byIndex = new Map(this.#agents.map((agent) => [agent.caller.agentIndex, agent]));
    this.#credentials = [];
    for (const agent of this.#agents) {
      if (!agent.entry) {
        const token = this.#legacyToken!;
        this.#credentials.push({ digest: sha256(token), raw: Buffer.from(token), caller: agent.caller });
        continue;
      }
      const { tokens, digests } = agentTokens(agent.entry);
      for (const token of tokens) this.#credentials.push({ digest: sha256(token), raw: Buffer.from(token), caller: agent.caller });
      for (const digest of digests) this.#credentials.push({ digest: Buffer.from(digest, 'hex'), caller: agent.caller });
    }
  }

  /** spec step 4, after the permission check. decisions §4: god bypasses; only gated categories wait. */
  checkTurn(def: CommandDef, caller: CallerContext): Failure | null {
    if (!def.turnGated || caller.role === 'god') return null;
    const holder = this.turnHolder;
    if (holder === null || holder === caller.agentId) return null;
    return turnNotYoursFailure(`it is ${holder}'s turn; '${def.name}' waits for your turn (turn_order: ${this.#rotation.join(' → ')})`);
  }

  /** Notes that an agent was seen (session_info's last_seen_utc). It does not keep a turn: see `acted`. */
  touch(caller: CallerContext): void {
    const agent = this.#byIndex.get(caller.agentIndex);
    if (agent) agent.lastSeen = Date.now();
  }

  /**
   * decisions §11: the holder ran a turn-gated command that reached the game and answered 200, so
   * its turn timer restarts. Reads, refusals and failures never call this: they do not keep a turn.
   */
  acted(caller: CallerContext): void {
    if (this.#turnTimeoutMs !== null && this.turnHolder === caller.agentId) this.#armTurnTimer();
  }

  /** Re-resolves `auto:N` claims against the current world (decisions §4: on every generate or load). */
  resolveClaims(kingdomOrder: readonly number[]): void {
    this.#kingdomOrder = [...kingdomOrder];
    for (const agent of this.#agents) agent.caller.claimedKingdomId = this.#resolveClaim(agent.entry?.kingdom_claim);
  }

  /** decisions §7: where turn_changed and message events go. */
  setEventSink(sink: SessionEventSink): void {
    this.#emit = sink;
  }

  start(): void {
    if (this.#turnBased && this.#turnTimeoutMs !== null) this.#armTurnTimer();
  }

  stop(): void {
    clearTimeout(this.#turnTimer ?? undefined); // no timer: nothing to clear
    this.#turnTimer = null;
  }

  // The calls below are what pool commands reach through the pool's RPC (session/pool-calls.ts);
  // they throw a BridgeError to refuse.

  /** session_info: the flags, every agent with its claim and last sight, and the turn. */
  info() {
    return {
      scenario: this.#scenario,
      partial_intel: this.#partialIntel,
      turn_based: this.#turnBased,
      legacy_mode: !this.multiAgent,
      agent_count: this.#agents.length,
      agents: this.#agents.map((agent) => ({
        id: agent.caller.agentId,
        role: agent.caller.role,
        claimed_kingdom_id: agent.caller.claimedKingdomId,
        last_seen_utc: agent.lastSeen === null ? null : new Date(agent.lastSeen).toISOString(),
      })),
      turn_order: this.#rotation,
      current_turn: this.turnHolder,
    };
  }

  /** turn_advance: the holder passes its turn; a god may force it. */
  advanceTurn(caller: CallerContext) {
    if (!this.#turnBased) throw badArgs('turn_advance: this session is not turn-based (set "turn_based": true in agents.json)');
    const holder = this.turnHolder;
    if (holder === caller.agentId) return this.#advance(false);
    if (caller.role === 'god') return this.#advance(true);
    throw errorOf(turnNotYoursFailure(`it is ${holder}'s turn; only the holder or a god can pass it`));
  }

  #advance(forcedByGod: boolean) {
    const previous = this.turnHolder;
    this.#turn = (this.#turn + 1) % this.#rotation.length;
    this.#publishTurn();
    if (this.#turnTimeoutMs !== null) this.#armTurnTimer();
    this.#log.info({ previous, next: this.turnHolder, forced_by_god: forcedByGod }, 'turn passed');
    this.#emit('turn_changed', { previous, next: this.turnHolder, forced_by_god: forcedByGod });
    return { previous, next: this.turnHolder, forced_by_god: forcedByGod };
  }

  /** send_message: to one agent, or to every other agent with "*" (send_broadcast). */
  send(caller: CallerContext, message: OutgoingMessage) {
    const { to, content, kind } = message;
    if (Buffer.byteLength(content) > LIMITS.messageMaxBytes) {
      throw badArgs(`content is ${Buffer.byteLength(content)} bytes; at most ${LIMITS.messageMaxBytes} are allowed`);
    }
    if (to === '*') {
      if ((caller.permissions & PERMISSIONS.send_broadcast) === 0) {
        throw errorOf(
          permissionDeniedFailure(`agent '${caller.agentId}' (role ${caller.role}) lacks the send_broadcast permission that a message to "*" needs`),
        );
      }
      const recipients = this.#bus.knownIds.filter((id) => id !== caller.agentId);
      return this.#sent(caller, recipients, '*', kind, content);
    }
    if (!this.#bus.has(to)) throw badArgs(`unknown recipient '${to}'; known agents: ${this.#bus.knownIds.join(', ')} (or "*" to broadcast)`);
    return this.#sent(caller, [to], to, kind, content);
  }

  #sent(caller: CallerContext, recipients: string[], to: string, kind: string, content: string) {
    const seq = this.#bus.send(caller.agentId, recipients, to, kind, content);
    const broadcast = to === '*';
    this.#emit('message', { bus_seq: seq, from: caller.agentId, to, message_kind: kind, content, broadcast }, [caller.agentId, ...recipients]);
    return { seq, recipients, broadcast };
  }

  /** recv_messages: the caller's messages after `since`, at most `max`. */
  receive(caller: CallerContext, since: number, max: number) {
    const items = this.#bus.receive(caller.agentId, since, max);
    return { items, count: items.length, next_cursor: items.length > 0 ? items[items.length - 1]!.seq : since };
  }

  /** objective_status: every agent's objectives judged against the live world's kingdoms. */
  objectives(kingdoms: readonly KingdomInfo[]) {
    return {
      scenario: this.#scenario,
      agents: this.#agents.map((agent) => ({
        agent_id: agent.caller.agentId,
        role: agent.caller.role,
        claimed_kingdom_id: agent.caller.claimedKingdomId,
        objectives: evaluateObjectives(agent.entry?.objectives ?? [], agent.caller.claimedKingdomId, kingdoms, (claim) => this.#resolveClaim(claim)),
      })),
      kingdoms: kingdoms.map((k) => ({ id: k.id, name: k.name, units: k.units_count, cities: k.cities_count, wild: k.wild })),
    };
  }

  #resolveClaim(claim: string | undefined): number | null {
    if (claim === undefined) return null;
    const [kind, value] = claim.split(':') as [string, string];
    // `id:N` names a kingdom; `auto:N` the N-th of the current world's kingdom order.
    const number = Number(value);
    return kind === 'id' ? number : (this.#kingdomOrder[number] ?? null);
  }

  #publishTurn(): void {
    const holder = this.turnHolder;
    const holderIndex = holder === null ? 0 : this.#byId.get(holder)!.caller.agentIndex + 1;
    Atomics.store(this.#control, kTurnHolder, holderIndex);
  }

  /** decisions §4, §11: a holder that acts on nothing for turn_timeout_s loses the turn, as if it had called turn_advance. */
  #armTurnTimer(): void {
    clearTimeout(this.#turnTimer ?? undefined); // no timer: nothing to clear
    this.#turnTimer = setTimeout(() => {
      this.#turnTimer = null;
      this.#log.warn({ holder: this.turnHolder }, 'turn timeout: the holder ran no action or control command in time and loses the turn');
      this.#advance(false);
    }, this.#turnTimeoutMs!);
    this.#turnTimer.unref();
  }
}
