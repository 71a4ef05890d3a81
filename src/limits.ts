// Every limit of the spec in one place (spec: Limits; decisions §2 and §5).

/** The spec's timing rules. The library accepts shorter ones for tests; the defaults are the spec's. */
export interface Timings {
  /** spec: admission wait, then 503 BUSY. */
  admissionWaitMs: number;
  /** spec: dispatcher queueing deadline, then 504 MAIN_THREAD_TIMEOUT. */
  queueDeadlineMs: number;
  /** spec: handler backstop, counted from the start of the command. */
  handlerBackstopMs: number;
  /** spec: a pulsed invoke_power holds its slot at most this long. */
  pulsedRunBudgetMs: number;
  /** decisions §12: a step stops after the tick in progress once it has run this long. */
  stepBudgetMs: number;
  /**
   * decisions §15: `[Game] step_slice_ms`. A step that has run this long stops after the tick in
   * progress while a command of another agent waits (stopped "yielded").
   */
  stepSliceMs: number;
  /** spec: kill-switch reload interval. */
  killSwitchReloadMs: number;
  /** decisions §1: on close, started actions get this long to finish. */
  shutdownGraceMs: number;
  /** decisions §7: a comment line this often keeps an idle event stream alive. */
  eventKeepAliveMs: number;
  /** How often the main loop judges agents' objectives for objective_changed (multi-agent mode). */
  objectivePollMs: number;
  /** decisions §13: an agent rests this long for each MiB of a large body read or large answer built. */
  transferRestMsPerMiB: number;
}

export const DEFAULT_TIMINGS: Readonly<Timings> = Object.freeze({
  admissionWaitMs: 5_000,
  queueDeadlineMs: 30_000,
  handlerBackstopMs: 60_000,
  pulsedRunBudgetMs: 25_000,
  stepBudgetMs: 25_000,
  stepSliceMs: 100,
  killSwitchReloadMs: 2_000,
  shutdownGraceMs: 5_000,
  eventKeepAliveMs: 15_000,
  objectivePollMs: 1_000,
  // 16 MiB/s an agent: a 1 MiB body, about 15 ms of the main loop here, then 62.5 ms of rest.
  transferRestMsPerMiB: 62.5,
});

export const LIMITS = Object.freeze({
  /** spec: max_concurrent_requests, default and allowed range. */
  maxConcurrentDefault: 8,
  maxConcurrentMin: 1,
  maxConcurrentMax: 64,
  /** spec: actions drained per frame by the game-thread dispatcher. */
  actionsPerFrame: 32,
  /** decisions §8: items a frame runs in all (a lone command is one), and items in one batch. */
  itemsPerFrame: 256,
  batchMaxItems: 32,
  /** decisions §8: how long an Idempotency-Key answer is kept; the key's length. */
  idempotencyTtlMs: 10 * 60_000,
  idempotencyKeyMaxLength: 255,
  /** decisions §13: `[Bridge] idempotency_budget_mb` default and range: the kept answers' bytes, split per agent. */
  idempotencyBudgetMbDefault: 64,
  idempotencyBudgetMbMin: 1,
  idempotencyBudgetMbMax: 1024,
  /** decisions §13: a larger answer is not kept (Idempotent-Stored: false). */
  idempotencyMaxAnswerBytes: 256 * 1024,
  /**
   * What a kept answer costs beyond its body: the key (up to 255 characters) with its agent id, the
   * request's fingerprint and the bookkeeping objects, so a flood of tiny answers is bounded by bytes
   * too. Measured on Node 20: about 365 bytes plus the key's length, so 640 covers the longest key.
   */
  idempotencyEntryOverheadBytes: 640,
  /** spec: per-frame job registry size. */
  jobRegistrySize: 32,
  /** decisions §3: invoke_power pulses. */
  maxPulses: 200,
  /** decisions §5: `[Bridge] max_body_bytes` default. */
  maxBodyBytesDefault: 1024 * 1024,
  /** The most `[Bridge] max_body_bytes` allows. */
  maxBodyBytesMax: 64 * 1024 * 1024,
  /** decisions §11: every id and name argument (asset ids, save names, races); did_you_mean only up to it. */
  idMaxLength: 64,
  /** decisions §11: a path argument (load_world.path: a save name, or a path inside saves/); PATH_MAX on Linux. */
  pathMaxLength: 4096,
  /** decisions §5: deeper JSON is 400 BAD_ARGS. */
  maxJsonDepth: 64,
  /** decisions §2: `[Game] fps` range and default. */
  fpsDefault: 60,
  fpsMin: 1,
  fpsMax: 240,
  /** decisions §1: the first world is this many 64-tile zones a side (256×256). */
  firstWorldZones: 4,
  /** decisions §1: default port and token shape. */
  portDefault: 8723,
  tokenLength: 48,
  /** spec: did_you_mean holds up to 5 suggestions; decisions §11: only for values of at most 64 characters. */
  didYouMeanCount: 5,
  didYouMeanMaxLength: 64,
  /** decisions §4: per-agent inbox and message size. */
  inboxSize: 200,
  messageMaxBytes: 4096,
  /** Entries the dispatcher can track at once (queued, running, or expired but not yet skipped). */
  dispatcherEntries: 4096,
  /**
   * Pool tasks whose worker is recorded in shared memory at once (in flight: up to the 64 admission
   * slots, plus waiting recv_events that gave theirs back); beyond, a task reports by message.
   */
  poolStartedCells: 1024,
  /** Slow clients: Node's header and whole-request timeouts, and how often it checks them. */
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  connectionsCheckingIntervalMs: 1_000,
  /** decisions §7: `[Bridge] event_history` default and range. */
  eventHistoryDefault: 10_000,
  eventHistoryMin: 0,
  eventHistoryMax: 1_000_000,
  /** decisions §13: the event history's bound in bytes (each kept event's JSON), beside its count. */
  eventHistoryBytes: 64 * 1024 * 1024,
  /** decisions §13: a `command` audit record's args summary: its JSON bytes in all, its strings, members per list or object, nesting. */
  auditArgsMaxBytes: 2048,
  auditStringMaxLength: 128,
  auditMembersMax: 32,
  auditDepthMax: 3,
  /** decisions §7: `[Bridge] max_event_streams` default and range (streams and waiting recv_events). */
  maxEventStreamsDefault: 16,
  maxEventStreamsMin: 1,
  maxEventStreamsMax: 256,
  /** decisions §7: bytes an event stream may have waiting for its client before it is closed. */
  eventStreamBufferBytes: 1024 * 1024,
  /** Largest write handed to one event stream at a time, so little sits inside the stream machinery. */
  eventStreamChunkBytes: 64 * 1024,
  /** Events one game frame may emit; beyond, they are dropped and counted (the sandbox summarises above 256). */
  eventsPerFrame: 4096,
  /** decisions §7: recv_events. */
  recvEventsMaxDefault: 100,
  recvEventsMaxMax: 1000,
  recvEventsWaitMaxMs: 25_000,
  /** decisions §10: `token` and `token_sha256` each hold 1..4 values (rotation with no gap). */
  tokensPerAgentMax: 4,
  /**
   * decisions §13: a request body or an answer over this is large: an agent's large bodies are read
   * one at a time (a body of unknown length counts as large), and each large transfer is paced.
   */
  largeBodyBytes: 64 * 1024,

  /** decisions §15: `[Game] step_slice_ms` range (its default is DEFAULT_TIMINGS.stepSliceMs). */
  stepSliceMsMin: 10,
  stepSliceMsMax: 25_000,
  /** decisions §14: a running command's progress reports are at least this far apart (10 a second at most). */
  progressIntervalMs: 100,
  /** decisions §14: a Progress-Token's length. */
  progressTokenMaxLength: 64,
  /**
   * decisions §14: how often the main loop looks for clients that closed their connection while
   * their command waited in the game queue or for a pool thread (then it never runs). A look reads
   * a flag per waiting request: no listener, so a request that does not wait pays nothing.
   */
  departedSweepMs: 50,

  /** decisions §12: ticks one step may ask for. */
  stepTicksMin: 1,
  stepTicksMax: 10_000,
  /** decisions §12: `[Game] max_savepoints` default and range; a savepoint's label. */
  maxSavepointsDefault: 16,
  maxSavepointsMin: 1,
  maxSavepointsMax: 256,
  savepointLabelMaxLength: 64,
  /** decisions §12: a record stops itself at this size (record_stopped, reason max_bytes). */
  recordMaxBytes: 256 * 1024 * 1024,
  /** decisions §12: under realtime, a record's hash line after the first frame past every this many ticks. */
  recordRealtimeHashTicks: 60,
  /** decisions §15: `gcb replay` refuses a record whose header is past this tick (the start world alone would step for hours). */
  replayHeaderTickMax: 1_000_000,
  /** decisions §15: `gcb replay --max-ticks` default: the ticks a replay may step in all. */
  replayMaxTicksDefault: 10_000_000,
  /** decisions §15: how deep a record's args may nest (no command's args come near it). */
  recordArgsMaxDepth: 32,
  /** decisions §12: a lockstep game thread with nothing queued wakes this often anyway (every Atomics wait has a timeout). */
  lockstepIdleWaitMs: 1_000,
  /** decisions §10: the longest a request's log line waits before it is written. */
  logFlushMs: 1_000,

  /** decisions §10 and §13: gcb mcp --http's open sessions (a half per agent, a quarter kept for read_all). */
  mcpSessionsMax: 64,
  /**
   * decisions §14: resource subscriptions, each held by one session: a credential holds at most this
   * many in all its sessions; the server at most mcpSubscriptionsMax (a quarter kept for read_all).
   */
  mcpSubscriptionsPerCredential: 64,
  mcpSubscriptionsMax: 256,
  /** decisions §14: the longest resource URI a session may subscribe to or read, in bytes. */
  mcpUriMaxBytes: 256,
  /** decisions §14: what a subscription holds besides its URI (its state, digest and timers), counted in bytes. */
  mcpSubscriptionBytes: 256,
  /**
   * decisions §14: stored SSE events a client may ask again with Last-Event-ID, in bytes: per
   * session, and per credential in all its sessions; the oldest go first.
   */
  mcpStreamStoreSessionBytes: 1024 * 1024,
  mcpStreamStoreCredentialBytes: 4 * 1024 * 1024,
  /** decisions §14: the `retry` an SSE stream's priming event asks for, in ms. */
  mcpSseRetryMs: 1_000,
  /** decisions §14: at most one notifications/resources/updated a second per resource. */
  mcpResourceUpdateMs: 1_000,
  /** decisions §14: at most ten notifications/progress a second per call. */
  mcpProgressIntervalMs: 100,
  /** decisions §14: how often a credential's permissions and the bridge's commands are read again (list_changed within 2 s). */
  mcpWatchIntervalMs: 1_000,
  /** decisions §14: a credential's shared event stream closes after this long with nothing to follow. */
  mcpFeedIdleMs: 5_000,
  /** decisions §14: events world://events gives at one read (recv_events' max). */
  mcpEventsPerRead: 100,
});
