// decisions §14: every command's result schema, as /capabilities serves it (`result_schema`), holds
// its real answers. Every command of the catalogue runs for real on a lockstep sandbox with a god's
// token (and the forms a command answers in: a direct and a pulsed invoke_power, a JPEG and a PNG
// screenshot), each answer checked with Ajv 2020; the MCP form of each answer (structuredContent)
// holds the tool's outputSchema too, and so do error results. /capabilities holds its own schema.
import t from 'tap';
import type { ValidateFunction } from 'ajv';
import { BridgeCallError } from '../../src/client/errors.ts';
import { BridgeClient, type Capabilities } from '../../src/client/client.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { CapabilitiesObject } from '../../src/commands/registry.ts';
import { describeSchema } from '../../src/commands/define.ts';
import { createAjv } from '../../src/config/ajv.ts';
import { errorResult, outputSchema, successResult, toolsFor } from '../../src/mcp/tools.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';

t.setTimeout(240_000);

const ma = await startAgents(
  t,
  {
    scenario: 'sandbox',
    turn_based: true,
    turn_order: ['p1'],
    agents: [
      agent('dm', 'god'),
      agent('p1', 'faction_player', {
        kingdom_claim: 'auto:0',
        objectives: [{ id: 'grow', label: 'Grow', kind: 'wipe_kingdom', target: 'auto:1' }],
      }),
    ],
  },
  { config: { clock: 'lockstep' } },
);
const god = new BridgeClient({ url: ma.b.bridge.url, token: token('dm'), retry: false });
const caps = await god.capabilities();
const ajv = createAjv({ useDefaults: false });

t.test('/capabilities: its own schema, and each command its permission and result schema', async (t) => {
  t.ok(ajv.validate(CapabilitiesObject, caps), JSON.stringify(ajv.errors));
  t.equal(caps.commands.length, COMMANDS.length, 'the sandbox enables every command');
  for (const def of COMMANDS) {
    const descriptor = caps.commands.find((c) => c.name === def.name)!;
    t.same(descriptor.permission, def.permission, `${def.name}: its permission rule`);
    t.same(descriptor.result_schema, describeSchema(def.result), `${def.name}: its result schema, described like its args`);
  }
});

t.test('every command, run for real: the answer holds its result schema; its MCP form holds the outputSchema', async (t) => {
  const results = new Map<string, ValidateFunction>();
  const outputs = new Map<string, ValidateFunction>();
  for (const command of caps.commands) {
    results.set(command.name, ajv.compile(command.result_schema!));
    outputs.set(command.name, ajv.compile(outputSchema(command.result_schema!)!));
  }
  const ran = new Set<string>();
  const run = async (name: string, args: Record<string, unknown> = {}, as: BridgeClient = god): Promise<any> => {
    let result: unknown;
    try {
      result = (await as.request(name, args)).result;
    } catch (err) {
      throw new Error(`${name} ${JSON.stringify(args).slice(0, 200)}: ${err instanceof BridgeCallError ? `${err.code}: ${err.message}` : String(err)}`, {
        cause: err,
      });
    }
    ran.add(name);
    const holds = results.get(name)!;
    t.ok(holds(result), `${name}: the answer holds result_schema ${JSON.stringify(holds.errors ?? '')}`);
    const form = outputs.get(name)!;
    t.ok(form(successResult(result).structuredContent), `${name}: structuredContent holds the outputSchema ${JSON.stringify(form.errors ?? '')}`);
    return result;
  };
  const player = new BridgeClient({ url: ma.b.bridge.url, token: token('p1'), retry: false });

  await run('health');
  await run('whoami');
  await run('session_info');
  await run('objective_status');
  await run('send_message', { to: 'p1', content: 'hello', kind: 'plan' });
  await run('recv_messages', {}, player);
  const tiles = await run('list_tiles');
  const actors = await run('list_actors');
  const powers = await run('list_powers');
  const speeds = await run('list_speeds');
  await run('get_world_state');
  await run('get_ui_state');
  const kingdoms = await run('list_kingdoms', { include_wild: true });
  await run('list_cities');
  await run('query_actors', { kingdom_id: kingdoms.items[0].id });
  await run('observe', { grid: 8, kingdom_id: kingdoms.items[0].id });
  await run('get_tile', { x: 10, y: 10 });
  await run('screenshot', { max_dimension: 64, format: 'jpg' });
  await run('screenshot', { max_dimension: 64, format: 'png' });
  await run('world_hash');
  await run('spawn', { entity_id: actors.items[0].id, x: 100, y: 100, count: 2 });
  await run('paint_tile', { x: 40, y: 40, tile_id: tiles.items[2].id });
  const power = powers.items.find((p: { is_toggle?: boolean }) => !p.is_toggle).id;
  t.match(await run('invoke_power', { power_id: power, x: 120, y: 120 }), { via: 'direct' });
  const pulsed = god.request('invoke_power', { power_id: power, x: 120, y: 120, pulses: 3, x2: 124, y2: 124 });
  // Under lockstep a pulsed run moves with the frames a step runs.
  await new Promise((resolve) => setTimeout(resolve, 200));
  await run('step', { ticks: 5 });
  const pulsedResult = (await pulsed).result;
  t.ok(results.get('invoke_power')!(pulsedResult), 'invoke_power: a pulsed answer holds result_schema');
  t.notMatch(pulsedResult, { via: 'direct' }, 'the pulsed form');
  await run('batch', { commands: [{ name: 'get_world_state' }, { name: 'spawn', args: { entity_id: 'nobody', x: 1, y: 1 } }], stop_on_error: false });
  await run('pause');
  await run('resume');
  await run('set_speed', { speed_id: speeds.items[0].id });
  await run('dismiss_window');
  await run('recv_events', { since_seq: 0, max: 5 });
  await run('turn_advance');
  const savepoint = await run('savepoint', { label: 'start' });
  await run('record_start', { name: 'schemas' });
  await run('step', { ticks: 2 });
  await run('record_stop');
  await run('rewind', { id: savepoint.id });
  await run('savepoint_drop', { id: savepoint.id });
  await run('save_world', { folder: 'schemas' });
  await run('load_world', { path: 'schemas' });
  await run('generate_world', { zone_x: 2, zone_y: 2, seed: 7 });

  t.same([...ran].sort(), COMMANDS.map((c) => c.name).sort(), 'every command of the catalogue ran');
});

t.test('error results and the capabilities tool hold their outputSchemas too', async (t) => {
  const tools = toolsFor(caps, 'worldbox_');
  const spawn = ajv.compile(tools.find((tool) => tool.name === 'worldbox_spawn')!.outputSchema!);
  const error = await god.request('spawn', { entity_id: 'humn', x: 1, y: 1 }).catch((err: BridgeCallError) => err);
  t.type(error, BridgeCallError);
  t.ok(spawn(errorResult(error as BridgeCallError).structuredContent), 'an error result with did_you_mean');
  const capabilities = ajv.compile(tools.find((tool) => tool.name === 'worldbox_capabilities')!.outputSchema!);
  t.ok(capabilities(successResult(caps as Capabilities).structuredContent), JSON.stringify(capabilities.errors));
});
