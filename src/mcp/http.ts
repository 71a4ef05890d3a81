// gcb mcp --http: the MCP streamable HTTP transport on loopback. One MCP server serves several
// agents: each session is bound to the bearer token of its initialize request, forwards it on every
// bridge call, and only that token may use the session afterwards.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CappedLeases, isRefusal, type Taker } from '../admission/capped-leases.ts';
import { presentedToken, sha256 } from '../auth/credentials.ts';
import { createHostCheck, originAllowed } from '../auth/host-origin.ts';
import { BridgeClient, type ClientOptions } from '../client/client.ts';
import { BridgeCallError, BridgeConnectionError } from '../client/errors.ts';
import { createMcpServer } from './server.ts';
import { DEFAULT_TOOL_PREFIX } from './tools.ts';

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
}

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
  const sessionLeases = new CappedLeases(options.maxSessions ?? 64, { noun: 'MCP sessions', cap: 'gcb mcp --http', freeOne: `close one (DELETE ${MCP_PATH})` });

  return async (req, res, token) => {
    if (req.method !== 'POST') return reject(res, 400, 'no Mcp-Session-Id: a session starts with a POST of initialize');
    const body = await readJson(req, maxInitBytes);
    if (body instanceof Error) return reject(res, body.message.startsWith('body over') ? 413 : 400, body.message, undefined, -32700);
    if (!isInitializeRequest(body)) return reject(res, 400, 'Bad Request: no valid session ID provided (start with initialize)');
    const busy = (message: string) => reject(res, 503, message, { 'retry-after': '1' });
    const full = sessionLeases.whenFull();
    if (full) return busy(full.message);

    const client = new BridgeClient({ ...options.clientOptions, url: options.bridgeUrl, token });
    const digest = sha256(token);
    const known = await identify(client, digest);
    if (known instanceof Refusal) return reject(res, known.status, known.message, known.headers);
    // No await from this check to the count it makes (decisions §10).
    const lease = sessionLeases.take(known.taker);
    if (isRefusal(lease)) return busy(lease.message);

    const server = createMcpServer({ client, capabilities: known.capabilities, prefix });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, digest, lastActive: Date.now() });
        log(`session ${id.slice(0, 8)} opened (${sessions.size} open)`);
      },
    });
    transport.onclose = () => {
      lease.release();
      const id = transport.sessionId;
      if (id !== undefined && sessions.delete(id)) log(`session ${id.slice(0, 8)} closed (${sessions.size} open)`);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that never became a session gives its count back.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) lease.release();
    }
  };
}

/** An answer that refuses the initialize request. */
class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly headers?: Record<string, string>,
  ) {}
}

type Capabilities = Awaited<ReturnType<BridgeClient['capabilities']>>;

/**
 * The session's own token reads /capabilities: it proves the token before the session exists, and
 * the tool list is the one this bridge serves now. /health says whether the bridge is in
 * multi-agent mode, where one agent gets at most half of the sessions; whoami names the agent (all
 * its tokens share its half) and whether it holds read_all (the kept quarter).
 */
async function identify(client: BridgeClient, digest: Buffer): Promise<{ capabilities: Capabilities; taker: Taker } | Refusal> {
  try {
    const capabilities = await client.capabilities();
    const [health, who] = await Promise.all([client.health(), whoami(client)]);
    const multiAgent = health.multi_agent;
    // While the kill switch is off POST /cmd answers DISABLED: the token then stands for its agent,
    // and only legacy mode's one credential, which holds every permission, counts as read_all, so
    // the kept quarter is never handed out on a guess.
    const taker = who ?? { agentId: `token ${digest.toString('hex')}`, readAll: !multiAgent };
    return { capabilities, taker: { ...taker, multiAgent } };
  } catch (err) {
    if (err instanceof BridgeCallError && err.code === 'UNAUTHORIZED')
      return new Refusal(401, 'the bridge refused this token', { 'www-authenticate': 'Bearer' });
    if (err instanceof BridgeCallError || err instanceof BridgeConnectionError) return new Refusal(502, err.message);
    throw err;
  }
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

/** The token's agent and whether it holds read_all; null while the bridge is disabled. */
async function whoami(client: BridgeClient): Promise<{ agentId: string; readAll: boolean } | null> {
  try {
    const who = await client.call('whoami');
    return { agentId: who.agent_id, readAll: who.permissions.includes('read_all') };
  } catch (err) {
    if (err instanceof BridgeCallError && err.code === 'DISABLED') return null;
    throw err;
  }
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
