// The catalogue as data (decisions §3 and §4): names in catalogue order, categories, where each
// command runs, the permission each needs, and schema rules every args schema follows. No bridge.
import t from 'tap';
import { COMMANDS } from '../../src/commands/index.ts';
import { describeSchema } from '../../src/commands/define.ts';
import * as sandbox from '../../src/game/index.ts';

const CATALOGUE: Array<[name: string, category: string, mainThread: boolean, permission: { all?: string[]; any?: string[] }]> = [
  ['health', 'meta', false, {}],
  ['whoami', 'meta', false, {}],
  ['session_info', 'meta', false, {}],
  ['turn_advance', 'meta', false, {}],
  ['objective_status', 'meta', true, { all: ['read_own_faction'] }],
  ['send_message', 'bus', false, { all: ['send_message'] }],
  ['recv_messages', 'bus', false, { all: ['recv_message'] }],
  ['list_tiles', 'discovery', true, {}],
  ['list_actors', 'discovery', true, {}],
  ['list_powers', 'discovery', true, {}],
  ['list_speeds', 'discovery', true, {}],
  ['invoke_power', 'action', true, { all: ['action_global'] }],
  ['spawn', 'action', true, { any: ['action_faction', 'action_global'] }],
  ['paint_tile', 'action', true, { all: ['action_global'] }],
  ['get_world_state', 'read', true, {}],
  ['get_tile', 'read', true, {}],
  ['list_kingdoms', 'read', true, { all: ['read_own_faction'] }],
  ['list_cities', 'read', true, { all: ['read_own_faction'] }],
  ['query_actors', 'read', true, { all: ['read_own_faction'] }],
  ['screenshot', 'read', true, { all: ['read_all'] }],
  ['get_ui_state', 'read', true, {}],
  ['pause', 'control', true, { all: ['advance_time'] }],
  ['resume', 'control', true, { all: ['advance_time'] }],
  ['set_speed', 'control', true, { all: ['advance_time'] }],
  ['dismiss_window', 'control', true, { all: ['advance_time'] }],
  ['generate_world', 'control', false, { all: ['control_world'] }],
  ['save_world', 'control', true, { all: ['control_world'] }],
  ['load_world', 'control', false, { all: ['control_world'] }],
  // decisions §7 (v0.4): visibility decides what each caller gets, so no permission is needed.
  ['recv_events', 'read', false, {}],
  // decisions §8 (v0.4): each item is checked for its own permission and turn; the dispatcher runs the items.
  ['batch', 'action', true, {}],
  // decisions §12 (v0.5): research mode. A faction player holds advance_time, not control_world.
  ['step', 'control', true, { all: ['advance_time'] }],
  ['world_hash', 'read', true, { all: ['read_all'] }],
  ['savepoint', 'control', true, { all: ['control_world'] }],
  ['rewind', 'control', true, { all: ['control_world'] }],
  ['savepoint_drop', 'control', true, { all: ['control_world'] }],
  // The fixed-size view for learning agents, fogged like list_cities and query_actors.
  ['observe', 'read', true, { all: ['read_own_faction'] }],
  ['record_start', 'control', false, { all: ['control_world'] }],
  ['record_stop', 'control', true, { all: ['control_world'] }],
];

t.test(
  'all 38 commands in catalogue order (28 of v0.3, recv_events and batch of v0.4, 5 of research mode, observe, 2 of episodes), with category, thread and permission',
  async (t) => {
    const names = COMMANDS.map((c) => c.name);
    t.equal(names.length, 38);
    t.same(
      names,
      CATALOGUE.map(([name]) => name),
      'catalogue order',
    );
    for (const [name, category, mainThread, permission] of CATALOGUE) {
      const def = COMMANDS.find((c) => c.name === name);
      t.ok(def, name);
      if (!def) continue;
      t.equal(def.category, category, `${name} category`);
      t.equal(def.runsOnGameThread, mainThread, `${name} requires_main_thread`);
      t.same(def.permission, permission, `${name} permission`);
      // A batch is gated item by item (decisions §8), not as a whole.
      const gated = (category === 'action' && name !== 'batch') || (category === 'control' && name !== 'dismiss_window');
      t.equal(def.turnGated, gated, `${name} turn gate`);
      if (category === 'meta' || category === 'bus') t.equal(def.turnGated, false, `${name} is never gated`);
      if (name === 'batch') t.type(def.frameItems, 'function', 'batch counts its items against the frame budget');
      else if (mainThread) t.type(def.frame, 'function', `${name} has a frame step`);
      else t.type(def.pool, 'function', `${name} runs on a pool thread`);
    }
  },
);

t.test('every args schema: an object, additionalProperties false, 2020-12, no enum on asset ids', async (t) => {
  for (const def of COMMANDS) {
    const schema = describeSchema(def.args) as {
      type: string;
      additionalProperties: boolean;
      $schema: string;
      properties?: Record<string, { enum?: unknown; minimum?: unknown; maximum?: unknown; anyOf?: unknown }>;
    };
    t.equal(schema.type, 'object', def.name);
    t.equal(schema.additionalProperties, false, `${def.name}: additionalProperties false`);
    t.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    for (const [field, prop] of Object.entries(schema.properties ?? {})) {
      if (/_id$/.test(field) && field !== 'kingdom_id') t.ok(prop.enum === undefined && prop.anyOf === undefined, `${def.name}.${field} is a plain string`);
      if (/^(x|y|x2|y2)$/.test(field)) t.ok(prop.minimum === undefined && prop.maximum === undefined, `${def.name}.${field} has no bounds`);
    }
  }
});

t.test('every game function a command binds is one the sandbox exports', async (t) => {
  const exported = new Set(Object.keys(sandbox).filter((key) => typeof (sandbox as Record<string, unknown>)[key] === 'function'));
  for (const def of COMMANDS) {
    for (const fn of def.binds) t.ok(exported.has(fn), `${def.name} binds ${fn}`);
  }
});

t.test('decisions §12: each research command binds what it needs, so a game without it has the command off', async (t) => {
  const binds = (name: string) => COMMANDS.find((def) => def.name === name)?.binds;
  t.same(binds('step'), ['advance', 'stateHash']);
  t.same(binds('world_hash'), ['stateHash']);
  for (const name of ['savepoint', 'rewind', 'savepoint_drop']) t.same(binds(name), ['snapshot', 'restore', 'stateHash'], name);
  const step = COMMANDS.find((def) => def.name === 'step')!;
  t.type(step.batchRefusal?.({ ticks: 1 } as never), 'string', 'step is never a batch item');
});
