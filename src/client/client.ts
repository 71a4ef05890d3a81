// The typed client of the bridge: GET /health, GET /capabilities and POST /cmd over global fetch.
// It loads no bridge runtime: command types come in as types only, errors are its own classes.
import type { CommandDescriptor, DisabledCommand } from '../commands/registry.ts';
import type { HealthObject } from '../commands/meta/health.ts';
import { isErrorCode } from '../errors/codes.ts';
import { sleep } from '../shared/sleep.ts';
import { KEYED_COMMANDS, type ArgsOptional, type BatchItem, type BatchResults, type CommandArgs, type CommandName, type CommandResult } from './commands.ts';
import { DEFAULT_CONFIG_DIR, readBridgeConfig } from './config.ts';
import { BridgeCallError, BridgeConnectionError, ClientConfigError, type ErrorBody } from './errors.ts';
import { EventStream, type EventStreamOptions } from './events.ts';
import { DEFAULT_RETRY, retryDelay, retryPolicy, type RetryPolicy } from './retry.ts';

export type { CommandDescriptor, DisabledCommand, HealthObject };

/** spec: the capabilities object. */
export interface Capabilities {
  mod_version: string;
  game_version: string;
  engine_version: string;
  game_assembly_sha256: string;
  commands: CommandDescriptor[];
  /** Additive to the spec's object: the commands the game module cannot run, and why; optional, so a bridge may leave it out. */
  disabled_commands?: DisabledCommand[];
  /** Additive (v0.5, decisions §12): which clock moves the world; absent from older bridges. */
  clock?: 'realtime' | 'lockstep';
  /** Additive (v0.4, decisions §7): the event kinds GET /events and recv_events know. */
  event_kinds?: string[];
}

/** A success envelope of POST /cmd. */
export interface CommandSuccess<R = unknown> {
  ok: true;
  result: R;
  tick: number;
}

export interface RetryEvent {
  /** The retry about to be made (1 for the first). */
  retry: number;
  delayMs: number;
  error: BridgeCallError;
}

export interface ClientOptions {
  /** The bridge, e.g. `http://127.0.0.1:8723`. Default: the port in the config dir's bridge.toml. */
  url?: string | URL;
  /** The bearer token. Default: `[Bridge] token` of the config dir's bridge.toml. */
  token?: string;
  /** Where bridge.toml is (decisions §1), read only for what `url` and `token` leave out. Default `./.bridge`. */
  configDir?: string;
  /** BUSY retries; `false` turns them off. Default: 4 retries, 500 ms doubling, at most 8 s a wait. */
  retry?: Partial<RetryPolicy> | false;
  /** Give up on a request after this long (a BridgeConnectionError). Default: no limit of its own. */
  timeoutMs?: number;
  /** Called before each BUSY retry (to tell a person, or count). */
  onRetry?: (event: RetryEvent) => void;
  /** A fetch to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's retry policy for this request. */
  retry?: Partial<RetryPolicy> | false;
  /** Sent as X-Request-Id, so the bridge's log line for this request carries it. */
  requestId?: string;
  /**
   * decisions §8: the Idempotency-Key to send. Action and control commands get a fresh one by
   * default; pass your own to retry a request across restarts of your program.
   */
  idempotencyKey?: string;
  /**
   * decisions §14: sent as Progress-Token; while the command runs, the bridge reports how far it got
   * as `progress` events carrying this token, on this credential's GET /events streams that ask
   * for the kind `progress`. 1..64 characters of [A-Za-z0-9._~-].
   */
  progressToken?: string;
  /** Called before each BUSY retry of this request, beside the client's own onRetry. */
  onRetry?: (event: RetryEvent) => void;
}

/** What `capabilitiesIfChanged` answers: nothing new, or the capabilities and their tag. */
export type CapabilitiesChange = { changed: false } | { changed: true; capabilities: Capabilities; etag: string | undefined };

/** `client.batch()`'s options beside the request's own. */
export interface BatchOptions extends RequestOptions {
  /** After a failed item, skip the rest (default true). */
  stopOnError?: boolean;
}

/** `call(name)` may leave the args out when the command takes none or only optional ones. */
export type CallParameters<N extends CommandName> =
  ArgsOptional<N> extends true ? [args?: CommandArgs<N>, options?: RequestOptions] : [args: CommandArgs<N>, options?: RequestOptions];

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

export class BridgeClient {
  readonly url: string;
  readonly #token: string;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number | undefined;
  readonly #onRetry: ((event: RetryEvent) => void) | undefined;
  readonly #fetch: typeof globalThis.fetch;
  readonly #options: ClientOptions;

  constructor(options: ClientOptions = {}) {
    this.#options = options;
    let { url, token } = options;
    if (url === undefined || token === undefined) {
      const found = readBridgeConfig(options.configDir ?? DEFAULT_CONFIG_DIR);
      url ??= found.url;
      token ??= found.token;
      if (token === undefined) throw new ClientConfigError(`${found.path} has no [Bridge] token; pass the token directly`);
    }
    this.url = normaliseUrl(url);
    if (token === '' || /[\r\n\0]/.test(token)) throw new ClientConfigError('the token is empty or holds a line break');
    this.#token = token;
    this.#retry = retryPolicy(options.retry, DEFAULT_RETRY);
    this.#timeoutMs = options.timeoutMs;
    this.#onRetry = options.onRetry;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** The same bridge and settings with another token (one MCP session per agent). */
  withToken(token: string): BridgeClient {
    return new BridgeClient({ ...this.#options, url: this.url, token });
  }

  /** GET /health: the health object. Gated by admission like a command, so BUSY is retried. */
  async health(options: RequestOptions = {}): Promise<HealthObject> {
    const answer = await this.#exchange('GET', '/health', undefined, 'health', options);
    if (!isRecord(answer.body) || answer.body.ok !== true) throw this.#notBridge('/health', answer);
    return answer.body as unknown as HealthObject;
  }

  /** GET /capabilities: versions and every enabled command with its args schema. Never gated. */
  async capabilities(options: RequestOptions = {}): Promise<Capabilities> {
    const answer = await this.#exchange('GET', '/capabilities', undefined, '', options);
    if (!isRecord(answer.body) || !Array.isArray(answer.body.commands)) throw this.#notBridge('/capabilities', answer);
    return answer.body as unknown as Capabilities;
  }

  /**
   * GET /capabilities with If-None-Match: `{ changed: false }` while the bridge still serves the
   * capabilities of `etag` (a 304), so a client can poll it for almost nothing.
   */
  async capabilitiesIfChanged(etag: string | undefined, options: RequestOptions = {}): Promise<CapabilitiesChange> {
    const answer = await this.#exchange('GET', '/capabilities', undefined, '', options, etag);
    if (answer.status === 304) return { changed: false };
    if (!isRecord(answer.body) || !Array.isArray(answer.body.commands)) throw this.#notBridge('/capabilities', answer);
    return { changed: true, capabilities: answer.body as unknown as Capabilities, etag: answer.headers.get('etag') ?? undefined };
  }

  /** POST /cmd with a typed name, args and result. Throws BridgeCallError for an error envelope. */
  async call<N extends CommandName>(name: N, ...[args, options]: CallParameters<N>): Promise<CommandResult<N>> {
    const success = await this.request(name, args as Record<string, unknown> | undefined, options);
    return success.result as CommandResult<N>;
  }

  /**
   * decisions §8: up to 32 commands run back to back in one frame for one slot, each result typed
   * by its item's name. The batch as a whole throws BridgeCallError only when it is refused (a bad
   * item, named) or never ran; an item's own failure is in its result.
   */
  async batch<const T extends readonly BatchItem[]>(items: T, options: BatchOptions = {}): Promise<BatchResults<T>> {
    const { stopOnError, ...rest } = options;
    const args: Record<string, unknown> = { commands: items };
    if (stopOnError !== undefined) args.stop_on_error = stopOnError;
    return (await this.request('batch', args, rest)).result as BatchResults<T>;
  }

  /**
   * decisions §12: run `ticks` ticks (1..10,000) and answer where the world got to. Under lockstep the
   * only way the world moves; under realtime only while paused. `stopped: 'deadline'` (its 25 s) or
   * `'yielded'` (decisions §15: another agent's command waited) when it ran fewer: step again for the rest.
   */
  async step(ticks: number, options: RequestOptions = {}): Promise<CommandResult<'step'>> {
    return this.call('step', { ticks }, options);
  }

  /** decisions §12: the world's 64-bit digest (16 hex) and its tick; equal states, equal hashes. */
  async worldHash(options: RequestOptions = {}): Promise<CommandResult<'world_hash'>> {
    return this.call('world_hash', {}, options);
  }

  /** decisions §12: keep the world in memory under a new id, for rewind(). */
  async savepoint(label?: string, options: RequestOptions = {}): Promise<CommandResult<'savepoint'>> {
    return this.call('savepoint', label === undefined ? {} : { label }, options);
  }

  /** decisions §12: put the world back exactly as it was at savepoint `id`. */
  async rewind(id: number, options: RequestOptions = {}): Promise<CommandResult<'rewind'>> {
    return this.call('rewind', { id }, options);
  }

  /** decisions §12: forget savepoint `id`. */
  async savepointDrop(id: number, options: RequestOptions = {}): Promise<CommandResult<'savepoint_drop'>> {
    return this.call('savepoint_drop', { id }, options);
  }

  /** decisions §12: record an episode to episodes/<name>.jsonl until recordStop(); `gcb replay` checks it. */
  async recordStart(name: string, options: RequestOptions = {}): Promise<CommandResult<'record_start'>> {
    return this.call('record_start', { name }, options);
  }

  /** decisions §12: end the running record. */
  async recordStop(options: RequestOptions = {}): Promise<CommandResult<'record_stop'>> {
    return this.call('record_stop', {}, options);
  }

  /** POST /cmd for any name (a newer bridge's, or one typed at a prompt): the whole success envelope. */
  async request(name: string, args?: Record<string, unknown>, options: RequestOptions = {}): Promise<CommandSuccess> {
    const payload = JSON.stringify(args === undefined ? { name } : { name, args });
    // decisions §8: every attempt of one call carries the same key, so the bridge runs it at most once.
    const key = options.idempotencyKey ?? (KEYED_COMMANDS.has(name) ? globalThis.crypto.randomUUID() : undefined);
    const answer = await this.#exchange('POST', '/cmd', payload, name, key === undefined ? options : { ...options, idempotencyKey: key });
    const body = answer.body;
    if (!isRecord(body) || body.ok !== true || !('result' in body)) throw this.#notBridge('/cmd', answer);
    return { ok: true, result: body.result, tick: typeof body.tick === 'number' ? body.tick : 0 };
  }

  /** GET /events as an async iterator that reconnects with Last-Event-ID (docs/events.md, src/client/events.ts). */
  events(options: EventStreamOptions = {}): EventStream {
    return new EventStream({ url: this.url, token: this.#token, fetch: this.#fetch }, options);
  }

  async #exchange(method: 'GET' | 'POST', path: string, payload: string | undefined, command: string, options: RequestOptions, etag?: string): Promise<Answer> {
    const policy = options.retry === undefined ? this.#retry : retryPolicy(options.retry, this.#retry);
    let redialled = false;
    for (let attempt = 1; ; attempt++) {
      let answer: Answer;
      try {
        answer = await this.#once(method, path, payload, options, etag);
      } catch (err) {
        // decisions §8: a keyed request whose connection dropped is sent once more with the same
        // key: the bridge answers it from what the first attempt did, never running it twice.
        if (options.idempotencyKey === undefined || redialled || !DROPPED.has(err as object)) throw err;
        redialled = true;
        attempt--;
        continue;
      }
      if ((answer.status >= 200 && answer.status < 300) || (answer.status === 304 && etag !== undefined)) return answer;
      const error = this.#errorOf(answer, path, command, attempt);
      // spec: BUSY means nothing reached the world, so it alone is safe to repeat.
      if (error.code !== 'BUSY') throw error;
      const delayMs = retryDelay(attempt, answer.headers.get('retry-after'), policy);
      if (delayMs === null) throw error;
      const retry = { retry: attempt, delayMs, error };
      this.#onRetry?.(retry);
      options.onRetry?.(retry);
      // An abort while waiting ends the wait at once: the next attempt is never sent.
      await sleep(delayMs, { signal: options.signal });
    }
  }

  async #once(method: string, path: string, payload: string | undefined, options: RequestOptions, etag: string | undefined): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, accept: 'application/json' };
    if (etag !== undefined) headers['if-none-match'] = etag;
    if (options.progressToken !== undefined) headers['progress-token'] = options.progressToken;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (options.requestId !== undefined) headers['x-request-id'] = options.requestId;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const timeout = this.#timeoutMs === undefined ? undefined : AbortSignal.timeout(this.#timeoutMs);
    const signals = [options.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(`${this.url}${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        ...(signal ? { signal } : {}),
      });
      text = await response.text();
    } catch (err) {
      // The caller's own abort stays an abort; everything else means no answer came back.
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout?.aborted) throw new BridgeConnectionError(`no answer from the bridge at ${this.url} within ${this.#timeoutMs} ms`, this.url, { cause: err });
      const dropped = new BridgeConnectionError(`cannot reach the bridge at ${this.url}: ${describeFetchError(err)} (is it running? gcb serve)`, this.url, {
        cause: err,
      });
      DROPPED.add(dropped);
      throw dropped;
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body };
  }

  #errorOf(answer: Answer, path: string, command: string, attempts: number): BridgeCallError {
    const error = isRecord(answer.body) && answer.body.ok === false ? answer.body.error : undefined;
    if (!isRecord(error) || typeof error.code !== 'string' || !isErrorCode(error.code)) throw this.#notBridge(path, answer);
    const body: ErrorBody = {
      ...(error as unknown as ErrorBody),
      message: typeof error.message === 'string' ? error.message : error.code,
      command: typeof error.command === 'string' ? error.command : command,
      args: isRecord(error.args) ? error.args : {},
    };
    return new BridgeCallError(body, answer.status, { requestId: answer.headers.get('x-request-id') ?? undefined, attempts });
  }

  #notBridge(path: string, answer: Answer): BridgeConnectionError {
    return new BridgeConnectionError(
      `${this.url}${path} answered HTTP ${answer.status} with something that is not a bridge envelope: is this the bridge's URL?`,
      this.url,
    );
  }
}

/** Connection failures that are neither the caller's abort nor the client's timeout: a keyed request may be sent again. */
const DROPPED = new WeakSet<object>();

export function createClient(options: ClientOptions = {}): BridgeClient {
  return new BridgeClient(options);
}

function normaliseUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw new ClientConfigError(`not a URL: ${String(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ClientConfigError(`not an http URL: ${String(url)}`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  return cause?.message ?? (err as Error)?.message ?? String(err);
}
