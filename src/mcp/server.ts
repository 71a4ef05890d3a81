// The MCP server for one client session: the SDK's low-level Server, so the bridge's JSON Schemas
// are served exactly as /capabilities gives them (the high-level registerTool wants Zod).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BridgeClient, Capabilities } from '../client/client.ts';
import { BridgeCallError, BridgeConnectionError } from '../client/errors.ts';
import { MOD_VERSION } from '../version.ts';
import { CAPABILITIES_TOOL, disabledResult, errorResult, successResult, toolsFor, unreachableResult } from './tools.ts';

export interface McpServerOptions {
  /** The bridge client of this session: its token is the session's. */
  client: BridgeClient;
  /** Read from the bridge when the session started. */
  capabilities: Capabilities;
  prefix: string;
}

export function createMcpServer({ client, capabilities, prefix }: McpServerOptions): Server {
  const server = new Server(
    { name: 'game-control-bridge', title: 'Game Control Bridge', version: MOD_VERSION },
    {
      capabilities: { tools: {} },
      instructions: instructionsFor(capabilities, prefix),
    },
  );
  const tools = toolsFor(capabilities, prefix);
  const commands = new Set(capabilities.commands.map((c) => c.name));
  // spec rule 3: a command the game module cannot run has no tool; a call to it is answered with
  // the bridge's reason (capabilities.disabled_commands), not as an unknown tool.
  const disabled = new Map((capabilities.disabled_commands ?? []).map((d) => [d.name, d.reason]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const command = name.startsWith(prefix) ? name.slice(prefix.length) : undefined;
    const disabledReason = command === undefined ? undefined : disabled.get(command);
    if (disabledReason !== undefined) return disabledResult(disabledReason);
    if (command === undefined || (command !== CAPABILITIES_TOOL && !commands.has(command))) {
      // MCP: an unknown tool is a protocol error (-32602). A plain Error with a code keeps the message
      // as written (McpError would prefix it, and the client prefixes it again).
      throw Object.assign(new Error(`unknown tool '${name}': tools/list has the ${tools.length} tools`), { code: ErrorCode.InvalidParams });
    }
    try {
      if (command === CAPABILITIES_TOOL) return successResult(await client.capabilities({ signal: extra.signal }));
      const args = request.params.arguments;
      const success = await client.request(command, args, { signal: extra.signal });
      return successResult(success.result);
    } catch (err) {
      if (err instanceof BridgeCallError) return errorResult(err);
      if (err instanceof BridgeConnectionError) return unreachableResult(err.message);
      throw err;
    }
  });

  return server;
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
