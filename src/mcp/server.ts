// The MCP server of one client session, over the credential (bridge token) it was opened with:
// the SDK's low-level Server, so the bridge's JSON Schemas are served exactly as /capabilities
// gives them (the high-level registerTool wants Zod). Tools, resources and prompts are listed as
// that credential may use them now, and the session is told when that changes (decisions §14).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
  type ReadResourceResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Capabilities } from '../client/client.ts';
import { MOD_VERSION } from '../version.ts';
import { callTool } from './call.ts';
import { createCompleter, type CompletionSources } from './completions.ts';
import type { Credential, CredentialView, LogLevel } from './credential.ts';
import { getPrompt, promptsFor, type ToolNames } from './prompts.ts';
import { parseUri, protocolError, readable, readTarget, resourcesFor, RESOURCE_NOT_FOUND, templatesFor, type Target } from './resources.ts';
import { Subscriptions } from './subscriptions.ts';
import { CAPABILITIES_TOOL, mayCall, toolsFor } from './tools.ts';

export interface McpServerOptions {
  /** The session's credential: its token is the session's. */
  credential: Credential;
  prefix: string;
  /** Hex SHA-256 of the session's token: who takes its places (subscriptions). */
  tokenDigest: string;
  /** The transport's session id once it has one (HTTP): the SDK keys the log level by it. */
  sessionId?: () => string | undefined;
}

export interface McpSession {
  server: Server;
  /** Ends the session's subscriptions and its following of the credential. */
  dispose(): void;
}

const LOGGER = 'gcb-mcp';

export function createMcpSession({ credential, prefix, tokenDigest, sessionId = () => undefined }: McpServerOptions): McpSession {
  const server = new Server(
    { name: 'game-control-bridge', title: 'Game Control Bridge', version: MOD_VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
      instructions: instructionsFor(credential.view.capabilities, prefix),
    },
  );
  let listed = listsOf(credential.view, credential.mask, prefix);
  const log = (level: LogLevel, message: string) =>
    void server.sendLoggingMessage({ level: level as LoggingLevel, logger: LOGGER, data: message }, sessionId()).catch(() => undefined);

  const events = eventsCursor(credential);
  if (listed.resources.some((r) => r.uri === 'world://events')) void events.get().catch(() => undefined);

  const read = (uri: string, target: Target, signal?: AbortSignal) =>
    readTarget(uri, target, {
      client: credential.client,
      caps: credential.view.capabilities,
      mask: credential.mask,
      cursor: events,
      gap: (from, to) => log('warning', `world://events: the bridge no longer holds events ${from}..${to} this session had not read: read the world again`),
      ...(signal === undefined ? {} : { signal }),
    });

  const subscriptions = new Subscriptions({
    credential,
    tokenDigest,
    read: (uri, target) => read(uri, target),
    updated: (uri) => void server.sendResourceUpdated({ uri }).catch(() => undefined),
    cursor: () => events.now(),
    failed: (uri, error) => log('warning', `${uri} could not be read again: ${error.message}`),
  });

  const detach = credential.attach({
    changed: (view) => {
      const next = listsOf(view, credential.mask, prefix);
      const send = (notify: () => Promise<void>) => void notify().catch(() => undefined);
      if (next.toolsKey !== listed.toolsKey) send(() => server.sendToolListChanged());
      if (next.promptsKey !== listed.promptsKey) send(() => server.sendPromptListChanged());
      if (next.resourcesKey !== listed.resourcesKey) send(() => server.sendResourceListChanged());
      if (view.capabilities !== listed.capabilities) subscriptions.capabilitiesChanged();
      listed = next;
    },
    log,
    // The bridge's seqs start again at 1: the cursor follows from the start of its new run.
    restarted: () => events.set(0),
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed.tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(request.params.name, request.params.arguments, extra, { credential, prefix, toolCount: () => listed.tools.length, log }),
  );

  registerResources(server, credential, subscriptions, () => listed, read);
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listed.prompts }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const prompt = getPrompt(request.params.name, request.params.arguments ?? {}, listed.names);
    if (prompt === undefined) throw protocolError(ErrorCode.InvalidParams, `no prompt '${request.params.name.slice(0, 100)}': prompts/list names them`);
    if (typeof prompt === 'string') throw protocolError(ErrorCode.InvalidParams, prompt);
    return prompt;
  });

  const complete = createCompleter(completionSources(credential));
  server.setRequestHandler(CompleteRequestSchema, (request) => complete(request.params));

  return {
    server,
    dispose: () => {
      detach();
      subscriptions.close();
    },
  };
}

/**
 * world://events' cursor for one session: it starts at the newest event the credential may see
 * when first asked (recv_events from beyond the end answers it, and no audit record follows).
 */
function eventsCursor(credential: Credential): { get(): Promise<number>; set(seq: number): void; now(): number | undefined } {
  let cursor: number | undefined;
  let reading: Promise<number> | undefined;
  return {
    get: () => {
      if (cursor !== undefined) return Promise.resolve(cursor);
      reading ??= credential.client
        .call('recv_events', { since_seq: Number.MAX_SAFE_INTEGER, max: 1 })
        .then((answer) => (cursor ??= answer.next_cursor))
        .finally(() => (reading = undefined));
      return reading;
    },
    set: (seq) => void (cursor = seq),
    now: () => cursor,
  };
}

/** resources/list, templates, read, subscribe and unsubscribe. */
function registerResources(
  server: Server,
  credential: Credential,
  subscriptions: Subscriptions,
  listed: () => Lists,
  read: (uri: string, target: Target, signal?: AbortSignal) => Promise<ReadResourceResult>,
): void {
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listed().resources }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: listed().templates }));
  const target = (uri: string): Target => {
    const parsed = parseUri(uri);
    if (parsed === null || !readable(parsed, credential.view.capabilities, credential.mask)) {
      throw protocolError(RESOURCE_NOT_FOUND, `no resource ${uri.slice(0, 300)} for this credential: resources/list and resources/templates/list name them`, {
        uri: uri.slice(0, 300),
      });
    }
    return parsed;
  };
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => read(request.params.uri, target(request.params.uri), extra.signal));
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    await subscriptions.subscribe(request.params.uri, target(request.params.uri));
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });
}

interface Lists {
  capabilities: Capabilities;
  tools: Tool[];
  toolsKey: string;
  names: ToolNames;
  prompts: ReturnType<typeof promptsFor>;
  promptsKey: string;
  resources: ReturnType<typeof resourcesFor>;
  templates: ReturnType<typeof templatesFor>;
  resourcesKey: string;
}

/** What a session lists for a view of its credential. */
function listsOf(view: CredentialView, mask: number | null, prefix: string): Lists {
  const caps = view.capabilities;
  const tools = toolsFor(caps, prefix, mask);
  const callable = new Set(caps.commands.filter((command) => mayCall(command, mask)).map((command) => command.name));
  const names: ToolNames = { has: (command) => callable.has(command), prefix };
  const prompts = promptsFor(names);
  const resources = resourcesFor(caps, mask);
  const templates = templatesFor(caps, mask);
  return {
    capabilities: caps,
    tools,
    toolsKey: JSON.stringify(tools),
    names,
    prompts,
    promptsKey: JSON.stringify(prompts),
    resources,
    templates,
    resourcesKey: JSON.stringify([resources, templates]),
  };
}

/** The lists completions read, through the session's token, each only when the credential may. */
function completionSources(credential: Credential): CompletionSources {
  const may = (name: string) => {
    const command = credential.view.capabilities.commands.find((c) => c.name === name);
    return command !== undefined && mayCall(command, credential.mask);
  };
  const client = credential.client;
  return {
    kingdoms: async () =>
      may('list_kingdoms')
        ? ((await client.request('list_kingdoms', { include_wild: true })).result as { items: Array<{ id: number; name: string }> }).items
        : [],
    actors: async () =>
      may('list_actors') ? ((await client.request('list_actors', {})).result as { items: Array<{ id: string }> }).items.map((a) => a.id) : [],
    size: async () =>
      may('get_world_state') ? ((await client.request('get_world_state', {})).result as { width: number; height: number }) : { width: 0, height: 0 },
  };
}

/**
 * What a model reads once per session. decisions §7: with recv_events there, a model should follow
 * the world through it rather than list the world again every turn.
 */
export function instructionsFor(capabilities: Capabilities, prefix: string): string {
  let text =
    `Each ${prefix}<command> tool runs one command of the Game Control Bridge in a running simulation game; ` +
    `${prefix}${CAPABILITIES_TOOL} lists them with their argument schemas. Asset ids (tile_id, entity_id, power_id, speed_id) ` +
    `come from the list_* tools. A failed call returns an error result with the bridge's code, message and, for an unknown id, ` +
    `did_you_mean: correct the call and try again. BUSY is already retried for you.`;
  if (capabilities.commands.some((command) => command.name === 'batch'))
    text += ` With several reads or actions ready at once, ${prefix}batch runs up to 32 of them in one frame for one call.`;
  if (capabilities.commands.some((command) => command.name === 'recv_events')) {
    text +=
      ` To learn what changed (births, deaths, cities, wars, powers, messages, other agents' commands), call ` +
      `${prefix}recv_events instead of listing the world again (list_kingdoms, list_cities, query_actors): read the world ` +
      `once, then pass since_seq = the next_cursor of your previous recv_events call, with wait_ms (up to 25000) to wait ` +
      `for the next event, and kinds to keep only those you care about. It returns only the events you may see. ` +
      `When its result has gap, events were missed: read the world once more, then go on from next_cursor.`;
  }
  return text;
}
