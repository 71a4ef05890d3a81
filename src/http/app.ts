import { createHash, randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { HttpBindings } from '@hono/node-server';
import type { Logger } from 'pino';
import type { Admission, Permit } from '../admission/semaphore.ts';
import { presentedToken, type CredentialTable } from '../auth/credentials.ts';
import { createHostCheck, originAllowed } from '../auth/host-origin.ts';
import { missingPermission } from '../auth/permissions.ts';
import type { CommandRegistry } from '../commands/registry.ts';
import { buildHealth } from '../commands/meta/health.ts';
import { failureOf, toFailure, type Failure } from '../errors/bridge-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import type { Execution } from '../dispatch/execute.ts';
import type { CommandDef } from '../commands/define.ts';
import type { Session } from '../session/session.ts';
import type { CallerContext } from '../shared/caller.ts';
import { kEnabled, kTick, type SharedState } from '../shared/layout.ts';
import type { BridgeInfo } from '../shared/protocol.ts';
import { isJsonContentType, parseCommandBody } from './body.ts';
import { errorBody, statusOf, successBody } from './envelope.ts';

export interface AppDeps {
  /** The port the bridge listens on (the Host check needs it; known only after listen with port 0). */
  port(): number;
  credentials: CredentialTable;
  enabled(): boolean;
  registry: CommandRegistry;
  admission: Admission;
  /** The session's step-4 turn check and its last-seen bookkeeping. */
  session: Pick<Session, 'checkTurn' | 'touch'>;
  shared: SharedState;
  info: BridgeInfo;
  log: Logger;
  maxBodyBytes: number;
  /** Pre-serialised GET /capabilities body, built once at startup. */
  capabilities: string;
  execute(def: CommandDef, args: unknown, caller: CallerContext): Promise<Execution>;
}

/** One log line per request (issue: agent, command, status, code, waits and run time). */
interface RequestLog {
  rid: string;
  method: string;
  path: string;
  agent: string | null;
  command: string | null;
  status: number;
  code: ErrorCode | null;
  admission_wait_ms: number;
  queue_wait_ms: number;
  run_ms: number;
  ms: number;
}

type Env = { Bindings: Partial<HttpBindings>; Variables: { rid: string; caller: CallerContext; line: RequestLog } };

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
/** Paths logged as sent; any other is logged as OTHER_PATH (a client may put its token there). */
const ENDPOINTS = new Set(['/cmd', '/health', '/capabilities']);
const OTHER_PATH = '(other)';
const JSON_HEADERS = 'application/json';

/**
 * The HTTP front end. It never listens (tests call app.request()) and never touches the world: it
 * authenticates, parses, admits and hands commands to the dispatcher or the pool.
 * decisions §5 order: Host/Origin → credential (401) → DISABLED → body → name (404) → args (400)
 * → admission (503) → permission (403) → turn (409) → run.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const app = new Hono<Env>();
  const hostAllowed = createHostCheck(deps.port);

  // spec: /capabilities is served directly from descriptors built once at startup; encoded once
  // too, with an ETag so a client that polls it (an MCP server, say) can get a 304.
  const capabilitiesBody = Buffer.from(deps.capabilities);
  const capabilitiesTag = `"${createHash('sha256').update(capabilitiesBody).digest('base64url').slice(0, 27)}"`;

  // The health object changes only with the tick or the kill switch: serialise it once per change.
  let healthCache = { tick: -1, enabled: -1, json: '' };
  const healthJson = (): string => {
    const tick = Atomics.load(deps.shared.control, kTick);
    const enabled = Atomics.load(deps.shared.control, kEnabled);
    if (tick !== healthCache.tick || enabled !== healthCache.enabled) {
      healthCache = { tick, enabled, json: JSON.stringify(buildHealth(deps.info, deps.shared)) };
    }
    return healthCache.json;
  };

  const send = (c: Context<Env>, status: number, body: string | Uint8Array, extra?: Record<string, string>): Response => {
    const line = c.get('line');
    line.status = status;
    // A Response with a plain headers object: @hono/node-server writes it as is, where c.body()
    // would build (and node-server then unpack) a web Headers on every request.
    return new Response(status === 304 ? null : (body as string), {
      status,
      headers: extra
        ? { 'content-type': JSON_HEADERS, 'x-request-id': c.get('rid'), ...extra }
        : { 'content-type': JSON_HEADERS, 'x-request-id': c.get('rid') },
    });
  };

  const fail = (c: Context<Env>, failure: Failure, command: string, args: unknown): Response => {
    c.get('line').code = failure.code;
    const extra = failure.code === 'BUSY' ? { 'retry-after': '1' } : undefined;
    return send(c, statusOf(failure), errorBody(failure, command, args), extra);
  };

  // decisions §5: over the limit by Content-Length is refused before reading; hono's bodyLimit
  // covers streamed (chunked) bodies. Only those go through it: asking a node-server request for
  // its body stream builds a full web Request, which costs every ordinary POST.
  const streamedLimit = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) => fail(c as Context<Env>, overLimit(deps.maxBodyBytes), '', {}),
  });
  const limitBody = (c: Context<Env>, next: () => Promise<void>) => {
    const length = header(c, 'content-length');
    if (length === undefined || header(c, 'transfer-encoding') !== undefined) return streamedLimit(c, next);
    return Number(length) > deps.maxBodyBytes ? Promise.resolve(fail(c, overLimit(deps.maxBodyBytes), '', {})) : next();
  };

  app.use('*', async function authenticate(c, next) {
    const t0 = performance.now();
    const requestId = header(c, 'x-request-id');
    const rid = requestId !== undefined && REQUEST_ID.test(requestId) ? requestId : randomUUID();
    const line: RequestLog = {
      rid,
      method: c.req.method,
      path: ENDPOINTS.has(c.req.path) ? c.req.path : OTHER_PATH,
      agent: null,
      command: null,
      status: 0,
      code: null,
      admission_wait_ms: 0,
      queue_wait_ms: 0,
      run_ms: 0,
      ms: 0,
    };
    c.set('rid', rid);
    c.set('line', line);
    // spec step 1: before any work is queued, so a bad token never takes a slot. A credential is
    // only valid from a loopback client naming the bridge in Host (DNS rebinding defence).
    const caller =
      hostAllowed(header(c, 'host')) && originAllowed(header(c, 'origin'))
        ? deps.credentials.resolve(presentedToken(header(c, 'authorization'), header(c, 'x-wb-token')))
        : null;
    if (caller === null) {
      c.res = fail(
        c,
        {
          ok: false,
          code: 'UNAUTHORIZED',
          message: 'missing or wrong credential: send Authorization: Bearer <token> (the token is in bridge.toml) from 127.0.0.1',
        },
        '',
        {},
      );
    } else {
      line.agent = caller.agentId;
      c.set('caller', caller);
      deps.session.touch(caller);
      await next();
    }
    line.ms = round(performance.now() - t0);
    deps.log.info(line, 'request');
  });

  // spec: never gated by admission; served from descriptors built once at startup.
  app.get('/capabilities', (c) =>
    header(c, 'if-none-match') === capabilitiesTag ? send(c, 304, '', { etag: capabilitiesTag }) : send(c, 200, capabilitiesBody, { etag: capabilitiesTag }),
  );

  // spec: gated by the admission limit like a command; decisions §5: the health object itself.
  app.get('/health', (c): Response | Promise<Response> => {
    const t0 = performance.now();
    const admitted = deps.admission.acquire(() => c.req.raw.signal);
    // A free slot is granted synchronously: answer in the same turn, without a promise.
    if (!(admitted instanceof Promise)) return answerHealth(c, admitted, t0);
    return admitted.then((permit) => answerHealth(c, permit, t0));
  });

  const answerHealth = (c: Context<Env>, permit: Permit | null, t0: number): Response => {
    c.get('line').admission_wait_ms = round(performance.now() - t0);
    if (permit === null) return fail(c, busy(deps.admission.waitMs), 'health', {});
    try {
      return send(c, 200, healthJson());
    } finally {
      permit.release();
    }
  };

  app.post(
    '/cmd',
    function killSwitch(c, next) {
      // decisions §5: DISABLED after authentication, before the body is read.
      if (!deps.enabled()) {
        return Promise.resolve(
          fail(
            c,
            { ok: false, code: 'DISABLED', message: 'the bridge is disabled (enabled = false in bridge.toml); set it to true, no restart needed' },
            '',
            {},
          ),
        );
      }
      if (!isJsonContentType(header(c, 'content-type'))) {
        return Promise.resolve(fail(c, { ok: false, code: 'BAD_ARGS', message: 'Content-Type must be application/json' }, '', {}));
      }
      return next();
    },
    limitBody,
    async (c) => {
      const line = c.get('line');
      const caller = c.get('caller');
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await c.req.arrayBuffer());
      } catch {
        return fail(c, { ok: false, code: 'BAD_ARGS', message: 'request body could not be read' }, '', {});
      }
      const request = parseCommandBody(bytes);
      if (request instanceof Error) return fail(c, failureOf(request), '', {});
      const { name, args } = request;
      const registered = deps.registry.get(name);
      // Only a registered name is logged: an unknown one is whatever the client sent.
      if (registered) line.command = name;
      if (!registered) {
        const message = deps.registry.disabledReason(name) ?? `unknown command '${name}': GET /capabilities lists the commands`;
        return fail(c, { ok: false, code: 'UNKNOWN_COMMAND', message }, name, args);
      }
      if (!registered.validate(args)) {
        const error = registered.validate.errors?.[0];
        const where = error?.instancePath ? `args${error.instancePath.replaceAll('/', '.')}` : 'args';
        const detail =
          error?.keyword === 'additionalProperties' ? `has unknown property '${String(error.params.additionalProperty)}'` : (error?.message ?? 'is invalid');
        return fail(c, { ok: false, code: 'BAD_ARGS', message: `${where} ${detail} (GET /capabilities has the schema)` }, name, args);
      }
      const t0 = performance.now();
      const permit = await deps.admission.acquire(() => c.req.raw.signal);
      line.admission_wait_ms = round(performance.now() - t0);
      if (permit === null) return fail(c, busy(deps.admission.waitMs), name, args);
      let holdUntil: Promise<void> | null = null;
      try {
        const def = registered.def;
        // spec step 4: permission, then turn, both before any game-state work.
        const missing = missingPermission(def.permission, caller.permissions);
        if (missing !== null) {
          return fail(
            c,
            {
              ok: false,
              code: 'PERMISSION_DENIED',
              message: `agent '${caller.agentId}' (role ${caller.role}) lacks the ${missing} permission that '${name}' needs`,
            },
            name,
            args,
          );
        }
        const turn = deps.session.checkTurn(def, caller);
        if (turn !== null) return fail(c, failureOf(turn), name, args);
        const run = await deps.execute(def, args, caller);
        holdUntil = run.settled;
        line.queue_wait_ms = round(run.queueWaitMs);
        line.run_ms = round(run.runMs);
        if (!run.outcome.ok) return fail(c, run.outcome, name, args);
        let body: string;
        try {
          body = successBody(run.outcome.value, Atomics.load(deps.shared.control, kTick));
        } catch (err) {
          return fail(c, toFailure(err), name, args);
        }
        return send(c, 200, body);
      } finally {
        // spec step 6: the slot goes back once the answer is serialised, or, after a backstop
        // answer, once the work it stands for has really ended.
        if (holdUntil) void holdUntil.then(() => permit.release());
        else permit.release();
      }
    },
  );

  // decisions §5: any other path or method, after authentication.
  app.all('*', (c) =>
    fail(
      c,
      { ok: false, code: 'UNKNOWN_COMMAND', message: `no such endpoint: ${c.req.method} ${c.req.path} (endpoints: GET /health, GET /capabilities, POST /cmd)` },
      '',
      {},
    ),
  );

  app.onError((err, c) => fail(c, toFailure(err), c.get('line')?.command ?? '', {}));

  return app;
}

/**
 * A request header. Served by @hono/node-server, Node has already parsed the headers into a plain
 * object; asking the web Request instead builds a whole undici Headers on every request, which
 * cost the hot path more than everything the bridge itself does there. Tests through app.request()
 * have no Node request and take the web path.
 */
function header(c: Context<Env>, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (incoming) {
    const value = incoming.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return c.req.header(name);
}

function overLimit(maxBodyBytes: number): Failure {
  return {
    ok: false,
    code: 'BAD_ARGS',
    message: `request body is larger than the ${maxBodyBytes}-byte limit ([Bridge] max_body_bytes); load large worlds by path, not bytes_b64`,
  };
}

function busy(waitMs: number): Failure {
  return { ok: false, code: 'BUSY', message: `all admission slots stayed taken for ${waitMs / 1000} s; nothing reached the world, retry` };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
