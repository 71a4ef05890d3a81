// decisions §11: every string argument of every command has a maxLength (ids and names 64,
// send_message content 4096), so a huge value is refused by the schema on the main loop (400
// BAD_ARGS) and /capabilities tells clients the limit; did_you_mean is computed only for values of
// at most 64 characters. The walk covers whatever /capabilities lists, so a command added later is
// held to the rule too.
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { unknownAsset } from '../../src/errors/bridge-error.ts';
import { LIMITS } from '../../src/limits.ts';
import { startTestBridge } from '../helpers/bridge.ts';

type Schema = Record<string, unknown>;

interface StringArg {
  command: string;
  /** Path of the argument inside args, for messages (`in_rect.x`). */
  path: string;
  schema: Schema;
}

/** Every string-typed node of a schema, wherever it sits (properties, items, anyOf, ...). */
function stringNodes(schema: unknown, path: string, out: Array<{ path: string; schema: Schema }>): void {
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Schema;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('string') && node.const === undefined && node.enum === undefined) out.push({ path, schema: node });
  for (const [key, child] of Object.entries(node.properties ?? {})) stringNodes(child, path ? `${path}.${key}` : key, out);
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains']) stringNodes(node[key], `${path}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) for (const child of (node[key] as unknown[]) ?? []) stringNodes(child, path, out);
  for (const key of ['$defs', 'definitions', 'patternProperties'])
    for (const child of Object.values((node[key] as Schema) ?? {})) stringNodes(child, path, out);
}

/** A value that satisfies a property's type, for filling the required arguments around the one under test. */
function filler(schema: Schema): unknown {
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'string':
      return 'a';
    case 'object':
      return Object.fromEntries(Object.entries((schema.properties as Record<string, Schema>) ?? {}).map(([key, child]) => [key, filler(child)]));
    default:
      return null;
  }
}

t.test('every string argument of every command has a maxLength, enforced on the main loop', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const capabilities = (await (await b.fetch('/capabilities')).json()) as { commands: Array<{ name: string; schema: Schema }> };
  t.ok(capabilities.commands.length >= 28, `${capabilities.commands.length} commands listed`);
  const args: StringArg[] = [];
  for (const command of capabilities.commands) {
    const found: Array<{ path: string; schema: Schema }> = [];
    stringNodes(command.schema, '', found);
    for (const node of found) args.push({ command: command.name, ...node });
  }
  t.ok(args.length >= 12, `${args.length} string arguments found`);
  for (const arg of args) {
    t.type(arg.schema.maxLength, 'number', `${arg.command}.${arg.path} has a maxLength in /capabilities`);
  }
  const limit = (command: string, path: string) => args.find((arg) => arg.command === command && arg.path === path)?.schema.maxLength;
  // decisions §11: ids and names 64, message content as the spec says (4 KiB).
  for (const [command, path] of [
    ['spawn', 'entity_id'],
    ['paint_tile', 'tile_id'],
    ['paint_tile', 'top_id'],
    ['invoke_power', 'power_id'],
    ['set_speed', 'speed_id'],
    ['query_actors', 'race'],
    ['save_world', 'folder'],
    ['send_message', 'to'],
  ] as const) {
    t.equal(limit(command, path), 64, `${command}.${path}: 64`);
  }
  t.equal(limit('send_message', 'content'), 4096, 'send_message.content: 4096');

  // One character over the limit, every other argument valid: 400 BAD_ARGS naming the argument.
  let refused = 0;
  for (const arg of args) {
    if (arg.path.includes('.') || arg.path.includes('[]')) continue; // top-level arguments are enough to send
    // load_world.bytes_b64 is bounded by the largest body the bridge can be set to take: the body limit refuses first.
    if ((arg.schema.maxLength as number) >= LIMITS.maxBodyBytesDefault) continue;
    const command = capabilities.commands.find((c) => c.name === arg.command)!;
    const properties = (command.schema.properties ?? {}) as Record<string, Schema>;
    const required = (command.schema.required ?? []) as string[];
    const body: Record<string, unknown> = {};
    for (const name of required) body[name] = filler(properties[name]!);
    body[arg.path] = 'x'.repeat((arg.schema.maxLength as number) + 1);
    const reply = await b.cmd(arg.command, body);
    t.equal(reply.status, 400, `${arg.command}.${arg.path}: one over the limit is refused`);
    t.match(reply.body.error, { code: 'BAD_ARGS', message: new RegExp(`args\\.${arg.path} `) }, 'by the schema, naming the argument');
    refused++;
  }
  t.ok(refused >= 11, `${refused} arguments checked over HTTP`);

  // A 1 MB id never leaves the main loop: answered BAD_ARGS by the schema, no UNKNOWN_ASSET.
  const huge = await b.cmd('spawn', { entity_id: 'x'.repeat(1024 * 1024 - 100), x: 1, y: 1 });
  t.match(huge, { status: 400, body: { error: { code: 'BAD_ARGS', message: /args\.entity_id must NOT have more than 64 characters/ } } });
});

t.test('did_you_mean only for values of at most 64 characters', async (t) => {
  const known = ['sheep', 'wolf', 'human', 'orc', 'elf', 'dwarf'];
  const near = unknownAsset('entity_id', `sheeq${'p'.repeat(LIMITS.idMaxLength - 5)}`, known);
  t.equal(near.didYouMean?.length, 5, 'a 64-character value gets its 5 suggestions');
  const long = 'sheep'.repeat(13); // 65 characters
  const far = unknownAsset('entity_id', long, known);
  t.same(far.didYouMean, [], 'a longer one gets none');
  t.ok(far.message.length < 200, 'and the message shows it cut');
  t.match(far.message, /\(65 characters\)/);
});
