// decisions §14, over stdio and Streamable HTTP with the SDK's client: a session lists the tools,
// prompts and resources its credential may use; a tool of a command it may not call answers the
// bridge's PERMISSION_DENIED as an error result, a name that is no tool stays -32602; when
// agents.json gives the credential other permissions, each session is told within 2 s and lists
// the new set.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { agent, startAgents, token, writeAgents } from '../multi-agent/helpers.ts';
import { until } from '../helpers/bridge.ts';
import { bothTransports, mcpServer, recordNotifications, text } from './helpers.ts';

t.setTimeout(180_000);

const AGENTS = {
  scenario: 'pvp',
  agents: [agent('dm', 'god'), agent('p1', 'faction_player', { kingdom_claim: 'auto:0' }), agent('o', 'observer')],
};
const ma = await startAgents(t, AGENTS, { config: { clock: 'lockstep' } });
const mcp = await mcpServer(t, ma.b.bridge.url);
// One session each over each transport, for the whole file (each gcb mcp over stdio is a process).
const [players, gods] = await Promise.all([bothTransports(t, mcp, ma.b.bridge.url, token('p1')), bothTransports(t, mcp, ma.b.bridge.url, token('dm'))]);

/** The twelve commands a faction player can never call (issue: screenshot, world_hash, invoke_power, paint_tile, 8 control_world). */
const PLAYER_CANNOT = [
  'invoke_power',
  'paint_tile',
  'screenshot',
  'world_hash',
  'generate_world',
  'save_world',
  'load_world',
  'savepoint',
  'rewind',
  'savepoint_drop',
  'record_start',
  'record_stop',
];

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name.replace(/^worldbox_/, ''));

t.test('a faction player lists 27 tools, 2 prompts and the resources it may read; the god all 39 and 3 prompts', async (t) => {
  for (const { via, client } of players) {
    const tools = await names(client);
    t.equal(tools.length, 27, `${via}: 39 less the 12 it can never call`);
    for (const name of PLAYER_CANNOT) t.notOk(tools.includes(name), `${via}: no ${name}`);
    t.ok(tools.includes('spawn') && tools.includes('step') && tools.includes('capabilities'), `${via}: what it may call is there`);
    t.same(
      (await client.listPrompts()).prompts.map((p) => p.name),
      ['play_kingdom', 'observe_world'],
      `${via}: the prompts whose tools it may call`,
    );
    const prompt = await client.getPrompt({ name: 'play_kingdom', arguments: { kingdom: '1' } });
    const words = (prompt.messages[0]!.content as { text: string }).text;
    t.match(words, /worldbox_observe \{"kingdom_id": 1\}/, `${via}: the prompt names its tools`);
    t.notMatch(words, /screenshot|invoke_power|world_hash/, `${via}: and none it may not call`);
    await t.rejects(client.getPrompt({ name: 'run_scenario' }), { code: -32602 }, `${via}: a god's prompt is not offered`);
    await t.rejects(client.getPrompt({ name: 'play_kingdom' }), { code: -32602, message: /needs the argument 'kingdom'/ }, `${via}: its argument`);
    await t.rejects(
      client.getPrompt({ name: 'play_kingdom', arguments: { kingdom: '1}, "x": {' } }),
      { code: -32602, message: /must be a kingdom id/ },
      `${via}: an argument that is no id is refused, not written into the prompt`,
    );
    t.same(
      (await client.listResources()).resources.map((r) => r.uri),
      ['world://state', 'world://kingdoms', 'world://map.png', 'world://capabilities', 'world://events'],
    );

    const denied = (await client.callTool({ name: 'worldbox_screenshot', arguments: {} })) as CallToolResult;
    t.equal(denied.isError, true, `${via}: a tool it may not call is an error result, not a protocol error`);
    t.match(denied.structuredContent, { code: 'PERMISSION_DENIED', message: /lacks the read_all permission that 'screenshot' needs/ });
    t.match(text(denied), /^PERMISSION_DENIED: /);
    await t.rejects(client.callTool({ name: 'worldbox_no_such_tool' }), { code: -32602 }, `${via}: a name that is no tool`);
  }
  for (const { via, client } of gods) {
    t.equal((await names(client)).length, 39, `${via}: the god may call everything`);
    t.same(
      (await client.listPrompts()).prompts.map((p) => p.name),
      ['play_kingdom', 'observe_world', 'run_scenario'],
    );
  }
});

t.test('agents.json read again with other permissions: tools/list_changed within 2 s, and the new list', async (t) => {
  const seen = players.map(({ client }) => recordNotifications(client));
  // p1 becomes an observer: it may read everything and act on nothing.
  writeAgents(ma.b.configDir, { ...AGENTS, agents: [agent('dm', 'god'), agent('p1', 'observer'), agent('o', 'observer')] });
  await ma.b.bridge.reloadAgents();
  const reloaded = Date.now();
  const changed = (index: number, method: string) => seen[index]!.find((n) => n.notification.method === method);
  await until(() => players.every((_, i) => changed(i, 'notifications/tools/list_changed') !== undefined), 10_000, 'tools/list_changed');
  for (const [i, { via, client }] of players.entries()) {
    const after = changed(i, 'notifications/tools/list_changed')!.at - reloaded;
    t.ok(after <= 2_000, `${via}: told ${after} ms after the reload`);
    const tools = await names(client);
    t.ok(tools.includes('screenshot') && tools.includes('world_hash'), `${via}: an observer's reads`);
    t.notOk(tools.includes('spawn') || tools.includes('step'), `${via}: no action, no time`);
    await until(() => changed(i, 'notifications/prompts/list_changed') !== undefined, 5_000, 'prompts/list_changed');
    t.same(
      (await client.listPrompts()).prompts.map((p) => p.name),
      ['observe_world'],
      `${via}: play_kingdom is gone`,
    );
  }
  // Permissions of its own that read nothing of a kingdom: kingdoms and the map leave its resources.
  writeAgents(ma.b.configDir, {
    ...AGENTS,
    agents: [agent('dm', 'god'), agent('p1', 'observer', { permissions: ['send_message', 'recv_message'] }), agent('o', 'observer')],
  });
  await ma.b.bridge.reloadAgents();
  await until(() => players.every((_, i) => changed(i, 'notifications/resources/list_changed') !== undefined), 10_000, 'resources/list_changed');
  for (const { via, client } of players) {
    t.same(
      (await client.listResources()).resources.map((r) => r.uri),
      ['world://state', 'world://capabilities', 'world://events'],
      `${via}: what it may still read`,
    );
    await t.rejects(client.readResource({ uri: 'world://kingdoms' }), { code: -32002 }, `${via}: a resource it may no longer read`);
  }
  // Back as it was, for the other tests of the file.
  writeAgents(ma.b.configDir, AGENTS);
  await ma.b.bridge.reloadAgents();
});
