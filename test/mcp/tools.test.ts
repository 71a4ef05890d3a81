// Commands → tools, results → tool results, envelopes → error results (no bridge needed).
import t from 'tap';
import type { Capabilities } from '../../src/client/client.ts';
import { BridgeCallError } from '../../src/client/errors.ts';
import { errorResult, successResult, toolsFor, TOOL_PREFIX_PATTERN } from '../../src/mcp/tools.ts';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { entity_id: { type: 'string' } },
  required: ['entity_id'],
  additionalProperties: false,
};
const caps: Capabilities = {
  mod_version: '0.3.0',
  game_version: 'g',
  engine_version: 'e',
  game_assembly_sha256: 'x',
  commands: [
    { name: 'spawn', category: 'action', description: 'Spawn actors.', requires_main_thread: true, schema },
    { name: 'get_tile', category: 'read', description: 'One tile.', requires_main_thread: true, schema: { type: 'object', properties: {} } },
  ],
};

t.test('one tool per command plus capabilities, schemas and descriptions as served', async (t) => {
  const tools = toolsFor(caps, 'worldbox_');
  t.same(
    tools.map((tool) => tool.name),
    ['worldbox_spawn', 'worldbox_get_tile', 'worldbox_capabilities'],
  );
  t.equal(tools[0]!.inputSchema, schema, 'the command schema itself');
  t.equal(tools[0]!.description, 'Spawn actors.');
  t.match(tools[0]!.annotations, { readOnlyHint: false });
  t.match(tools[1]!.annotations, { readOnlyHint: true });
  t.same(
    toolsFor(caps, '').map((tool) => tool.name),
    ['spawn', 'get_tile', 'capabilities'],
  );
  t.ok(TOOL_PREFIX_PATTERN.test('wb-2_'));
  t.notOk(TOOL_PREFIX_PATTERN.test('bad prefix'));
  t.notOk(TOOL_PREFIX_PATTERN.test('a'.repeat(33)));
});

t.test('a result is JSON text plus structured content; an image result is an image block', async (t) => {
  t.same(successResult({ a: 1 }), { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
  const shot = { format: 'png', width: 2, height: 1, source_width: 2, source_height: 1, bytes: 3, base64: 'AAAA' };
  const image = successResult(shot);
  t.same(image.content[0], { type: 'image', data: 'AAAA', mimeType: 'image/png' });
  t.same(JSON.parse((image.content[1] as { text: string }).text), { format: 'png', width: 2, height: 1, source_width: 2, source_height: 1, bytes: 3 });
  t.notOk('base64' in (image.structuredContent ?? {}), 'the base64 goes once');
  t.match(successResult({ ...shot, format: 'jpg' }).content[0], { type: 'image', mimeType: 'image/jpeg' });
});

t.test('an error envelope keeps code, message, did_you_mean and exception', async (t) => {
  const unknown = new BridgeCallError(
    { code: 'UNKNOWN_ASSET', message: "entity_id 'humn' does not exist", command: 'spawn', args: {}, did_you_mean: ['human', 'demon'] },
    400,
  );
  const result = errorResult(unknown);
  t.equal(result.isError, true);
  t.same(result.structuredContent, { code: 'UNKNOWN_ASSET', message: "entity_id 'humn' does not exist", did_you_mean: ['human', 'demon'] });
  t.match((result.content[0] as { text: string }).text, /^UNKNOWN_ASSET: entity_id 'humn' does not exist\ndid_you_mean: \["human","demon"\]$/);
  const exception = { type: 'GameRejected', message: 'water', stack_top: 'at spawn' };
  const rejected = errorResult(new BridgeCallError({ code: 'GAME_REJECTED', message: 'water', command: 'spawn', args: {}, exception }, 422));
  t.same(rejected.structuredContent, { code: 'GAME_REJECTED', message: 'water', exception });
});
