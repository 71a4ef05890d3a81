// Bridge commands as MCP tools: one per command in GET /capabilities plus one for capabilities
// itself (36 with every command enabled: the spec's 29, recv_events, batch and the 5 research
// commands). Schemas and descriptions are served as the bridge gives them; results and error
// envelopes become tool results a model can read and act on.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Capabilities } from '../client/client.ts';
import type { BridgeCallError } from '../client/errors.ts';
import { unknownCommandFailure } from '../errors/failures.ts';

/** Prompts written for the original WorldBox bridge call its tools worldbox_<command>. */
export const DEFAULT_TOOL_PREFIX = 'worldbox_';
/** The tool for GET /capabilities: `<prefix>capabilities`. */
export const CAPABILITIES_TOOL = 'capabilities';

/** Keeps `<prefix><command>` inside the tool-name rules clients enforce ([A-Za-z0-9_-], at most 64). */
export const TOOL_PREFIX_PATTERN = /^[A-Za-z0-9_-]{0,32}$/;

/** Commands that only read (annotations.readOnlyHint), so a client may run them without asking. */
const READ_ONLY_CATEGORIES = new Set(['discovery', 'read']);
const READ_ONLY_COMMANDS = new Set(['health', 'whoami', 'session_info', 'objective_status', 'recv_messages']);

export function toolsFor(caps: Capabilities, prefix: string): Tool[] {
  const tools: Tool[] = caps.commands.map((command) => ({
    name: `${prefix}${command.name}`,
    description: command.description,
    inputSchema: command.schema as Tool['inputSchema'],
    annotations: { readOnlyHint: READ_ONLY_CATEGORIES.has(command.category) || READ_ONLY_COMMANDS.has(command.name), openWorldHint: false },
  }));
  tools.push({
    name: `${prefix}${CAPABILITIES_TOOL}`,
    description: 'The bridge, game and engine versions, and every enabled command with its category, description and args JSON Schema.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  });
  return tools;
}

const IMAGE_TYPES: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png' };

/** A command's result as JSON text and structured content; an image result (screenshot) as an image block. */
export function successResult(result: unknown): CallToolResult {
  const structured = isRecord(result) ? result : { result };
  const format = typeof structured.format === 'string' ? IMAGE_TYPES[structured.format] : undefined;
  if (format !== undefined && typeof structured.base64 === 'string') {
    // The picture goes once, as an image; the text and structured content keep the rest
    // (sizes, format) without a second copy of the base64.
    const { base64, ...meta } = structured;
    return {
      content: [
        { type: 'image', data: base64 as string, mimeType: format },
        { type: 'text', text: JSON.stringify(meta) },
      ],
      structuredContent: meta,
    };
  }
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: structured };
}

/** An error envelope as an MCP error result: code, message and did_you_mean kept, so a model can correct its next call. */
export function errorResult(error: BridgeCallError): CallToolResult {
  const structured: Record<string, unknown> = { code: error.code, message: error.message };
  let text = `${error.code}: ${error.message}`;
  if (error.didYouMean !== undefined) {
    structured.did_you_mean = error.didYouMean;
    text += `\ndid_you_mean: ${JSON.stringify(error.didYouMean)}`;
  }
  if (error.exception !== undefined) {
    structured.exception = error.exception;
    text += `\nexception: ${JSON.stringify(error.exception)}`;
  }
  return { isError: true, content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * A call to a command the game module cannot run: the bridge's own answer to it (UNKNOWN_COMMAND
 * with the reason, from /capabilities disabled_commands), so a model learns it is disabled and why
 * rather than that the tool does not exist.
 */
export function disabledResult(reason: string): CallToolResult {
  const { code, message } = unknownCommandFailure(reason);
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { code, message, disabled: true },
  };
}

/** No envelope came back (the bridge is down): an error result that says so. */
export function unreachableResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
