// gcb mcp --http: the MCP streamable HTTP transport on loopback. One MCP server serves several
// agents: each session is bound to the bearer token of its initialize request, forwards it on every
// bridge call, and only that token may use the session afterwards. The sessions of one token share
// its credential (credential.ts): what it may call, its event stream, its share of every store.
// Streams resume (decisions §14): each SSE stream opens with a priming event (an id, empty data) and
// a `retry`, and a client reconnecting with Last-Event-ID gets what it missed (stream-store.ts).
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server as HttpServer, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CappedLeases, isRefusal } from '../admission/capped-leases.ts';
import { presentedToken, sha256 } from '../auth/credentials.ts';
import { createHostCheck, originAllowed } from '../auth/host-origin.ts';
import { BridgeClient, type ClientOptions } from '../client/client.ts';
import { BridgeCallError, BridgeConnectionError } from '../client/errors.ts';
import { LIMITS } from '../limits.ts';
import { Credential, subscriptionPool } from './credential.ts';
import { createMcpSession } from './server.ts';
import type { SessionStreams } from './stream-store.ts';
import { DEFAULT_TOOL_PREFIX } from './tool-names.ts';

export const DEFAULT_MCP_PORT = 8724;
export const MCP_PATH = '/mcp';

export interface McpHttpOptions {
  /** The bridge, e.g. http://127.0.0.1:8723. */
  bridgeUrl: string;
  /** Retry and timeout settings of the per-session bridge clients. */
  clientOptions?: Omit<ClientOptions, 'url' | 'token' | 'configDir'>;
  /** Listen port on 127.0.0.1; 0 picks a free one. Default 8724. */
  port?: number;
  prefix?: string;
  /** Session-level log lines (never a token). Default: stderr. */
  log?: (line: string) => void;
  /**
   * Open sessions allowed at once; more initialize requests get 503. Default 64. decisions §10 and
   * §13: against a multi-agent bridge one agent holds at most half of them (rounded up), and a
   * quarter (rounded down) is kept for agents with read_all.
   */
  maxSessions?: number;
  /** A session with no request for this long is closed. Default 1 hour. */
  idleTimeoutMs?: number;
  /** Largest initialize body read. Default 1 MiB. */
  maxInitBytes?: number;
}

export interface McpHttpHandle {
  /** The MCP endpoint: http://127.0.0.1:PORT/mcp */
  url: string;
  port: number;
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** SHA-256 of the session's token: the only token that may use the session. */
  digest: Buffer;
  lastActive: number;
  streams: SessionStreams;
}

/** The SDK's id for a session's standalone (GET) SSE stream, which it does not prime itself. */
const STANDALONE_STREAM = '_GET_stream';
/** The first protocol revision whose clients take an event with empty data (a priming event). */
const PRIMING_REVISION = '2025-11-25';

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpHandle> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`gcb mcp: ${line}\n`));
  const idleTimeoutMs = options.idleTimeoutMs ?? 3_600_000;
  const sessions = new Map<string, Session>();
  const openSession = sessionOpener(options, sessions, log);
  let port = options.port ?? DEFAULT_MCP_PORT;
  const hostAllowed = createHostCheck(() => port);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // MCP transport spec: validate Origin (DNS rebinding), bind to localhost only. The Host check
    // is the same defence for clients that send no Origin.
    if (!hostAllowed(req.headers.host)) return reject(res, 403, `the Host header must be 127.0.0.1:${port} or localhost:${port}`);
    if (!originAllowed(header(req, 'origin')))
      return reject(res, 403, 'only loopback origins (http://localhost, http://127.0.0.1, http://[::1]) may use this MCP server');
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== MCP_PATH) return reject(res, 404, `no such endpoint: the MCP endpoint is ${MCP_PATH}`);
    const token = presentedToken(header(req, 'authorization'), header(req, 'x-wb-token'));
    if (token === undefined || token === '') {
      return reject(res, 401, 'send the bridge token as Authorization: Bearer <token> (`gcb token` prints it)', { 'www-authenticate': 'Bearer' });
    }
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined) return openSession(req, res, token);
    const session = sessions.get(sessionId);
    if (!session) return reject(res, 404, 'session not found: start a new one with initialize', undefined, -32001);
    if (!timingSafeEqual(session.digest, sha256(token)))
      return reject(res, 401, 'this session was opened with another token', { 'www-authenticate': 'Bearer' });
    session.lastActive = Date.now();
    if (req.method === 'GET' && header(req, 'last-event-id') === undefined && (header(req, 'mcp-protocol-version') ?? '') >= PRIMING_REVISION) {
      primeStream(res, () => session.streams.prime(STANDALONE_STREAM));
    }
    await session.transport.handleRequest(req, res);
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`request failed: ${(err as Error).message}`);
      if (!res.headersSent) reject(res, 500, 'internal error', undefined, -32603);
      else res.end();
    });
  });
  port = await listenOnLoopback(http, port);
  const reaper = startReaper(sessions, idleTimeoutMs);

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    port,
    sessionCount: () => sessions.size,
    close: () => {
      closing ??= (async () => {
        clearInterval(reaper);
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        await Promise.all([...sessions.values()].map((session) => session.server.close().catch(() => undefined)));
        http.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}

type Opener = (req: IncomingMessage, res: ServerResponse, token: string) => Promise<void>;

/** The initialize path: a request without Mcp-Session-Id that may become a session bound to its token. */
function sessionOpener(options: McpHttpOptions, sessions: Map<string, Session>, log: (line: string) => void): Opener {
  const prefix = options.prefix ?? DEFAULT_TOOL_PREFIX;
  const maxInitBytes = options.maxInitBytes ?? 1024 * 1024;
  // Sessions counted the moment their check passes (opening or open), in all, per agent and for
  // agents without read_all, so parallel initialize requests cannot all pass a check made before an
  // await.
  const sessionLeases = new CappedLeases(options.maxSessions ?? LIMITS.mcpSessionsMax, {
    noun: 'MCP sessions',
    cap: 'gcb mcp --http',
    freeOne: `close one (DELETE ${MCP_PATH})`,
  });
  const credentials = new Credentials();

  return async (req, res, token) => {
    if (req.method !== 'POST') return reject(res, 400, 'no Mcp-Session-Id: a session starts with a POST of initialize');
    const body = await readJson(req, maxInitBytes);
    if (body instanceof Error) return reject(res, body.message.startsWith('body over') ? 413 : 400, body.message, undefined, -32700);
    if (!isInitializeRequest(body)) return reject(res, 400, 'Bad Request: no valid session ID provided (start with initialize)');
    const busy = (message: string) => reject(res, 503, message, { 'retry-after': '1' });
    const full = sessionLeases.whenFull();
    if (full) return busy(full.message);

    const digest = sha256(token);
    const key = digest.toString('hex');
    const held = await credentials.hold(key, () => new BridgeClient({ ...options.clientOptions, url: options.bridgeUrl, token }));
    if (held instanceof Refusal) return reject(res, held.status, held.message, held.headers);
    const { credential } = held;
    // No await from this check to the count it makes (decisions §10).
    const lease = sessionLeases.take(credential.taker(key));
    if (isRefusal(lease)) {
      held.release();
      return busy(lease.message);
    }

    const streams = credential.streams.forSession();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server: session.server, digest, lastActive: Date.now(), streams });
        log(`session ${id.slice(0, 8)} opened (${sessions.size} open)`);
      },
      eventStore: streams,
      retryInterval: LIMITS.mcpSseRetryMs,
    });
    const session = createMcpSession({ credential, prefix, tokenDigest: key, sessionId: () => transport.sessionId });
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      lease.release();
      session.dispose();
      streams.drop();
      held.release();
    };
    transport.onclose = () => {
      end();
      const id = transport.sessionId;
      if (id !== undefined && sessions.delete(id)) log(`session ${id.slice(0, 8)} closed (${sessions.size} open)`);
    };
    try {
      await session.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that never became a session gives back what it took.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) end();
    }
  };
}

/**
 * The credentials of open sessions, by token digest: the first session of a token reads what it
 * may call; each next one reads it again (a session lists what its credential may call when it
 * starts); the last one to go closes it.
 */
class Credentials {
  readonly #held = new Map<string, { credential: Promise<Credential>; users: number }>();
  readonly #pool = subscriptionPool();

  async hold(key: string, client: () => BridgeClient): Promise<{ credential: Credential; release(): void } | Refusal> {
    let entry = this.#held.get(key);
    const fresh = entry === undefined;
    if (entry === undefined) {
      entry = { credential: Credential.open(client(), this.#pool), users: 0 };
      this.#held.set(key, entry);
    }
    const held = entry;
    held.users++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      if (this.#held.get(key) === held) this.#held.delete(key);
      void held.credential.then((credential) => credential.close()).catch(() => undefined);
    };
    try {
      const credential = await held.credential;
      if (!fresh) await credential.refresh();
      return { credential, release };
    } catch (err) {
      // A refused open is not kept: the next initialize asks the bridge again.
      if (this.#held.get(key) === held) this.#held.delete(key);
      release();
      return refusalOf(err);
    }
  }
}

/** An answer that refuses the initialize request. */
class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly headers?: Record<string, string>,
  ) {}
}

/** The answer to an initialize whose token the bridge refused, or whose bridge did not answer. */
function refusalOf(err: unknown): Refusal {
  if (err instanceof BridgeCallError && err.code === 'UNAUTHORIZED') return new Refusal(401, 'the bridge refused this token', { 'www-authenticate': 'Bearer' });
  if (err instanceof BridgeCallError || err instanceof BridgeConnectionError) return new Refusal(502, err.message);
  throw err;
}

/**
 * A new GET stream's priming event (decisions §14): an id to resume from and the `retry` to wait,
 * written right after the answer's head, before anything the SDK writes (it primes only the
 * streams of POST requests).
 */
function primeStream(res: ServerResponse, primingId: () => string): void {
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  res.writeHead = ((status: number, headers?: OutgoingHttpHeaders) => {
    const written = writeHead(status, headers);
    const type = headers === undefined ? undefined : Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    if (status === 200 && String(type).startsWith('text/event-stream')) res.write(`id: ${primingId()}\nretry: ${LIMITS.mcpSseRetryMs}\ndata: \n\n`);
    return written;
  }) as typeof res.writeHead;
}

/** Listens on 127.0.0.1 (port 0 picks a free one) and returns the port it got. */
async function listenOnLoopback(http: HttpServer, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  return (http.address() as { port: number }).port;
}

/** Closes sessions idle for longer than idleTimeoutMs. */
function startReaper(sessions: ReadonlyMap<string, Session>, idleTimeoutMs: number): NodeJS.Timeout {
  const reaper = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) if (now - session.lastActive > idleTimeoutMs) void session.transport.close();
    },
    Math.min(60_000, idleTimeoutMs),
  );
  reaper.unref();
  return reaper;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return new Error(`body over the ${limit}-byte limit`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return new Error(`body over the ${limit}-byte limit`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return new Error('Parse error: the body is not JSON');
  }
}
