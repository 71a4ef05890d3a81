// Bridge commands as MCP tools: one per command in GET /capabilities that the credential may call,
// plus one for capabilities itself (39 with every command enabled and every permission: the
// spec's 29, recv_events, batch, observe and the 7 research commands). Input and output schemas
// and descriptions are served as the bridge gives them; results and error envelopes become tool
// results a model can read and act on, whose structuredContent conforms to the tool's outputSchema.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { missingPermission } from '../auth/permissions.ts';
import type { Capabilities, CommandDescriptor } from '../client/client.ts';
import type { BridgeCallError } from '../client/errors.ts';
import { CapabilitiesObject } from '../commands/registry.ts';
import { unknownCommandFailure } from '../errors/failures.ts';

import { CAPABILITIES_TOOL } from './tool-names.ts';

export { CAPABILITIES_TOOL, DEFAULT_TOOL_PREFIX, TOOL_PREFIX_PATTERN } from './tool-names.ts';

/** Commands that only read (annotations.readOnlyHint), so a client may run them without asking. */
const READ_ONLY_CATEGORIES = new Set(['discovery', 'read']);
const READ_ONLY_COMMANDS = new Set(['health', 'whoami', 'session_info', 'objective_status', 'recv_messages']);

/**
 * Whether a credential with permission `mask` may call the command (decisions §14): null (the
 * legacy token, or a bridge that cannot say now) may call everything, and so may any credential
 * for a command whose descriptor names no permission (a bridge older than v0.6).
 */
export function mayCall(command: CommandDescriptor, mask: number | null): boolean {
  return mask === null || command.permission === undefined || missingPermission(command.permission, mask) === null;
}

export function toolsFor(caps: Capabilities, prefix: string, mask: number | null = null): Tool[] {
  const tools: Tool[] = [];
  for (const command of caps.commands) {
    if (!mayCall(command, mask)) continue;
    const tool: Tool = {
      name: `${prefix}${command.name}`,
      description: command.description,
      inputSchema: command.schema as Tool['inputSchema'],
      annotations: { readOnlyHint: READ_ONLY_CATEGORIES.has(command.category) || READ_ONLY_COMMANDS.has(command.name), openWorldHint: false },
    };
    if (command.result_schema !== undefined) tool.outputSchema = outputSchema(command.result_schema);
    tools.push(tool);
  }
  tools.push({
    name: `${prefix}${CAPABILITIES_TOOL}`,
    description:
      'The bridge, game and engine versions, and every enabled command with its category, description, the permissions it ' +
      'needs, and its args and result JSON Schemas.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: outputSchema(CAPABILITIES_SCHEMA),
    annotations: { readOnlyHint: true, openWorldHint: false },
  });
  return tools;
}

const CAPABILITIES_SCHEMA = JSON.parse(JSON.stringify(CapabilitiesObject)) as Record<string, unknown>;

/** The structuredContent of an error result: the envelope's error, as a model reads it. */
const ERROR_RESULT: Record<string, unknown> = {
  type: 'object',
  description: 'an error result (isError: true): the bridge’s code and message, with did_you_mean and exception when it gave them',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    did_you_mean: { type: 'array', items: { type: 'string' } },
    exception: { type: 'object' },
    disabled: { type: 'boolean' },
  },
  required: ['code', 'message'],
};

/**
 * A tool's outputSchema: MCP wants an object at the root, and its structuredContent always
 * conforms, an error result's included. So the result's schema (its own branches when it has
 * several), an image result's form (the picture goes as an image block, not in structuredContent),
 * and the error form, as alternatives; a result that is no object is wrapped as `{ result }`.
 */
export function outputSchema(resultSchema: Record<string, unknown>): Tool['outputSchema'] {
  const { $schema, ...schema } = resultSchema;
  const branches = Array.isArray(schema.anyOf) && schema.type === undefined ? (schema.anyOf as Array<Record<string, unknown>>) : [schema];
  const forms = branches.map((branch) => (isObjectSchema(branch) ? imageForm(branch) : wrapped(branch)));
  return { ...($schema === undefined ? {} : { $schema }), type: 'object', anyOf: [...forms, ERROR_RESULT] };
}

function isObjectSchema(schema: Record<string, unknown>): boolean {
  return schema.type === 'object';
}

function wrapped(schema: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

/** An image result (format and base64 at the top) without its base64, as successResult sends it. */
function imageForm(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties === undefined || !('base64' in properties) || !('format' in properties)) return schema;
  const { base64: _picture, ...rest } = properties;
  const required = Array.isArray(schema.required) ? (schema.required as string[]).filter((name) => name !== 'base64') : undefined;
  return { ...schema, properties: rest, ...(required === undefined ? {} : { required }) };
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
