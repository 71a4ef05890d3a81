// A bridge of a few lines for the MCP server's own rules, where a real one cannot be made to do
// the thing at will: answer BUSY, hold a request open and see its client go, or send `progress`
// events at a given pace. It speaks the wire of docs/protocol.md for what gcb mcp asks: /health,
// /capabilities, GET /events, and POST /cmd of whoami, recv_events and one command, `work`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Test } from 'tap';

export const FAKE_TOKEN = 'fake-bridge-token-0123456789-ABCDEFGH';

export interface WorkRequest {
  args: Record<string, unknown>;
  progressToken: string | undefined;
  req: IncomingMessage;
  res: ServerResponse;
  /** Resolves when the client closed its connection before an answer. */
  closed: Promise<void>;
  answer(result: unknown): void;
  busy(retryAfterSeconds?: number): void;
}

export interface FakeBridge {
  url: string;
  /** Every `work` request, in order. */
  works: WorkRequest[];
  /** What to do with each `work` request (default: answer at once). */
  onWork(handler: (work: WorkRequest) => void): void;
  /** Sends a `progress` event to every open GET /events stream that asked for the kind. */
  progress(fields: Record<string, unknown>): void;
  /** Open GET /events streams that asked for `progress`. */
  progressStreams(): number;
}

const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: true };

export async function startFakeBridge(t: Test): Promise<FakeBridge> {
  const works: WorkRequest[] = [];
  const streams = new Set<ServerResponse>();
  let handler: (work: WorkRequest) => void = (work) => work.answer({ done: true });
  const capabilities = JSON.stringify({
    mod_version: '0.6.0',
    game_version: 'fake',
    engine_version: 'fake',
    game_assembly_sha256: 'x',
    commands: [
      {
        name: 'work',
        category: 'action',
        description: 'Works until told.',
        requires_main_thread: true,
        schema,
        permission: {},
        result_schema: { $schema: schema.$schema, type: 'object', properties: { done: { type: 'boolean' } }, required: ['done'] },
      },
      { name: 'recv_events', category: 'read', description: 'Events.', requires_main_thread: false, schema, permission: {} },
    ],
    disabled_commands: [],
    event_kinds: ['command', 'progress'],
    clock: 'realtime',
  });
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${FAKE_TOKEN}`)
      return json(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'no', command: '', args: {} } });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/capabilities') return json(res, 200, JSON.parse(capabilities), { etag: '"fake"' });
    if (url.pathname === '/health') {
      return json(res, 200, {
        ok: true,
        mod_version: '0.6.0',
        game_version: 'fake',
        engine_version: 'fake',
        game_assembly_sha256: 'x',
        tick: 1,
        enabled: true,
        multi_agent: false,
        scenario: 'sandbox',
        agent_count: 1,
        clock: 'realtime',
      });
    }
    if (url.pathname === '/events') {
      if (!(url.searchParams.get('kinds') ?? '').split(',').includes('progress')) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-event-run': 'fake', 'x-event-seq': '0' });
        res.write(': keep-alive\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-event-run': 'fake', 'x-event-seq': '0' });
      res.write(': keep-alive\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { name: string; args?: Record<string, unknown> };
    if (body.name === 'whoami') {
      return json(res, 200, {
        ok: true,
        tick: 1,
        result: { agent_id: 'legacy', role: 'god', claimed_kingdom_id: null, permissions: [], scenario: 'sandbox', partial_intel: false },
      });
    }
    if (body.name === 'recv_events') return json(res, 200, { ok: true, tick: 1, result: { items: [], count: 0, next_cursor: 0, oldest_seq: 1 } });
    let answered = false;
    const closed = new Promise<void>((resolve) => res.on('close', () => !answered && resolve()));
    const work: WorkRequest = {
      args: body.args ?? {},
      progressToken: req.headers['progress-token'] as string | undefined,
      req,
      res,
      closed,
      answer: (result) => {
        answered = true;
        json(res, 200, { ok: true, tick: 1, result });
      },
      busy: (retryAfter = 1) => {
        answered = true;
        json(res, 503, { ok: false, error: { code: 'BUSY', message: 'all slots taken', command: 'work', args: {} } }, { 'retry-after': String(retryAfter) });
      },
    };
    works.push(work);
    handler(work);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    works,
    onWork: (next) => void (handler = next),
    progress: (fields) => {
      for (const stream of streams) stream.write(`event: progress\ndata: ${JSON.stringify({ kind: 'progress', ...fields })}\n\n`);
    },
    progressStreams: () => streams.size,
  };
}
