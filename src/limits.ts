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
  /** spec: kill-switch reload interval. */
  killSwitchReloadMs: number;
  /** decisions §1: on close, started actions get this long to finish. */
  shutdownGraceMs: number;
}

export const DEFAULT_TIMINGS: Readonly<Timings> = Object.freeze({
  admissionWaitMs: 5_000,
  queueDeadlineMs: 30_000,
  handlerBackstopMs: 60_000,
  pulsedRunBudgetMs: 25_000,
  killSwitchReloadMs: 2_000,
  shutdownGraceMs: 5_000,
});

export const LIMITS = Object.freeze({
  /** spec: max_concurrent_requests, default and allowed range. */
  maxConcurrentDefault: 8,
  maxConcurrentMin: 1,
  maxConcurrentMax: 64,
  /** spec: actions drained per frame by the main-thread dispatcher. */
  actionsPerFrame: 32,
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
  /** decisions §1: default port and token shape. */
  portDefault: 8723,
  tokenLength: 48,
  /** decisions §4: per-agent inbox and message size. */
  inboxSize: 200,
  messageMaxBytes: 4096,
  /** Entries the dispatcher can track at once (queued, running, or expired but not yet skipped). */
  dispatcherEntries: 4096,
  /** Slow clients: Node's header and whole-request timeouts, and how often it checks them. */
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  connectionsCheckingIntervalMs: 1_000,
});
