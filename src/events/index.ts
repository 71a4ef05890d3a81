// The event layer on the main loop (decisions §7): the hub, GET /events, the audit of POST /cmd,
// and the hooks the rest of the bridge feeds it through. bridge.ts wires it; start()/stop() are
// its lifecycle.
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Outcome } from '../errors/bridge-error.ts';
import { badArgsFailure } from '../errors/failures.ts';
import type { AnswerObserver, AppEntry } from '../http/app.ts';
import type { Env } from '../http/context.ts';
import type { Timings } from '../limits.ts';
import type { CallerContext } from '../shared/caller.ts';
import { commandRecord, isAudited } from './audit.ts';
import { allKinds, checkDeclaredKinds, checkEventFog } from './kinds.ts';
import type { Restriction } from './audience.ts';
import { EventHub, NO_KINGDOMS, type RecvArgs } from './hub.ts';
import { watchObjectives, type ObjectiveWatch } from './objectives.ts';
import { eventsRoutes } from './routes.ts';
import type { EventBatch } from '../shared/protocol.ts';
import type { ProgressChannel } from '../shared/progress.ts';
import { progressChannel } from './progress.ts';

export { EventHub } from './hub.ts';

export interface EventLayer {
  readonly hub: EventHub;
  /** GET /events, mounted with app.route(). */
  readonly routes: Hono<Env>;
  /** Told of every answer: a `command` audit event per POST /cmd answer but refusals. */
  readonly audit: AnswerObserver;
  /** Its part of the HTTP app (createApp's entries): GET /events, the audit of POST /cmd's answers, and its progress channel. */
  readonly entry: AppEntry;
  /** decisions §14: where POST /cmd's progress goes: the calling agent's own streams. */
  readonly progress: ProgressChannel;
  /**
   * The game's declared kinds (its `eventKinds`) and their fog (its `eventFog`): checked, warned
   * about, added. Returns /capabilities event_kinds.
   */
  setGameKinds(declared: unknown, fog?: unknown): string[];
  /** Batches from the game thread. */
  publishBatch(batch: EventBatch): void;
  /** The pool's `events` calls: emit from a pool step, recv_events. */
  poolCall(name: 'emit' | 'recv', input: unknown, caller: CallerContext, slot: { release(): void } | undefined): Promise<Outcome<unknown>>;
  /** objective_changed: start judging objectives on a timer (multi-agent mode). */
  watchObjectives(source: { kingdoms(): Promise<Outcome<unknown>>; judge(kingdoms: unknown): Promise<Outcome<unknown>> }): void;
  start(): void;
  stop(): Promise<void>;
}

export function createEvents(options: { history: number; maxStreams: number; multiAgent: boolean; tick(): number; timings: Timings; log: Logger }): EventLayer {
  const { log, timings } = options;
  const hub = new EventHub({
    history: options.history,
    maxStreams: options.maxStreams,
    multiAgent: options.multiAgent,
    tick: options.tick,
    keepAliveMs: timings.eventKeepAliveMs,
    log,
    kinds: allKinds([]),
  });
  let objectives: ObjectiveWatch | null = null;

  // decisions §7: a `command` record is seen by read_all holders and the agent that sent it. One
  // audience per agent, shared by its records, rather than two objects more per record for the
  // history to keep (agents are few, and an agents.json reload does not change an id's audience).
  const audiences = new Map<string, Restriction>();
  const audienceOf = (agentId: string): Restriction => {
    let audience = audiences.get(agentId);
    if (audience === undefined) {
      audience = Object.freeze({ agents: Object.freeze([agentId]), readAll: true });
      audiences.set(agentId, audience);
    }
    return audience;
  };

  // Told of every answer (app.ts AppEntry.onAnswered) once its log line is complete, before it
  // leaves, rather than a middleware in front of POST /cmd: the route then runs as one handler,
  // without hono's compose. Its ms is the request's, as the log line has it.
  const audit: AnswerObserver = function auditCommand(line, path, _seconds, c) {
    // decisions §13: a refusal is counted and logged, and is no event (a 401, and any other
    // method's 404 on this path, among them).
    if (path !== '/cmd' || !isAudited(line.status)) return;
    const request = c.get('cmdRequest');
    // recv_events is not audited: a long-poll that saw its own audit record would never wait.
    // whoami neither: it reads only the caller's own credential, and gcb mcp asks it every second
    // to follow that credential's permissions (decisions §14), which would flood the history.
    if (request?.name === 'recv_events' || request?.name === 'whoami') return;
    const agentId = c.get('caller').agentId;
    const record = commandRecord(agentId, request, line, line.ms, c.get('place'));
    hub.emit('command', record, NO_KINGDOMS, audienceOf(agentId));
  };

  const routes = eventsRoutes(hub);
  const progress = progressChannel((caller, token, command, report) => hub.progress(caller, token, command, report));
  return {
    hub,
    routes,
    audit,
    progress,
    entry: { routes, onAnswered: audit, progress },
    setGameKinds(declared, declaredFog) {
      const { kinds, ignored } = checkDeclaredKinds(declared);
      for (const { kind, reason } of ignored) log.warn({ kind: kind.slice(0, 64) }, `the game's eventKinds entry '${kind.slice(0, 64)}' is ignored: ${reason}`);
      const fog = checkEventFog(declaredFog, kinds);
      for (const { kind, reason } of fog.ignored)
        log.warn({ kind: kind.slice(0, 64) }, `the game's eventFog entry '${kind.slice(0, 64)}' is ignored: ${reason}`);
      hub.setFog(fog.fog);
      const all = allKinds(kinds);
      hub.setKinds(all);
      return all;
    },
    publishBatch: (batch) => hub.publishBatch(batch),
    async poolCall(name, input, caller, slot) {
      if (name === 'recv') return hub.recv(input as RecvArgs, caller, slot);
      const { kind, fields } = input as { kind: string; fields?: Record<string, unknown> };
      // Pool steps emit the bridge's frame kinds only (world_saved); never a main-loop kind.
      if (kind !== 'world_saved') return badArgsFailure(`a pool step may not emit '${kind}'`);
      hub.emit(kind, fields);
      return { ok: true, value: null };
    },
    watchObjectives(source) {
      objectives?.stop();
      objectives = watchObjectives({
        intervalMs: timings.objectivePollMs,
        kingdoms: source.kingdoms,
        judge: source.judge,
        emit: (fields, kingdomIds) => hub.emit('objective_changed', fields, kingdomIds),
        log,
      });
    },
    start: () => hub.start(),
    async stop() {
      objectives?.stop();
      await hub.stop();
    },
  };
}
