// decisions §14, over stdio and Streamable HTTP with the SDK's client, on a lockstep pvp sandbox
// (partial intel; a world that moves only when stepped): resources read through the bridge with
// the session's own token, so fogged like every read; subscriptions notified when what the
// credential may see changed, at most once a second, never for what it may not see, and not after
// an unsubscribe; completions of prompt and template arguments.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { PNG } from 'pngjs';
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { agent, startAgents, token } from '../multi-agent/helpers.ts';
import { bothTransports, mcpServer, recordNotifications } from './helpers.ts';

t.setTimeout(240_000);

const ma = await startAgents(
  t,
  { scenario: 'pvp', agents: [agent('dm', 'god'), agent('p1', 'faction_player', { kingdom_claim: 'auto:0' })] },
  { config: { clock: 'lockstep' } },
);
const mcp = await mcpServer(t, ma.b.bridge.url);
// One session each over each transport, for the whole file (each gcb mcp over stdio is a process).
const [player, god] = await Promise.all([bothTransports(t, mcp, ma.b.bridge.url, token('p1')), bothTransports(t, mcp, ma.b.bridge.url, token('dm'))]);
const mine: number = (await ma.as('p1', 'whoami')).body.result.claimed_kingdom_id;
const civ = (await ma.as('dm', 'list_kingdoms')).body.result.items.filter((k: { wild: boolean }) => !k.wild);
const theirs: number = civ.find((k: { id: number }) => k.id !== mine).id;
/** Where a live actor of `kingdom` stands: a spawn there touches that kingdom, so its event names it. */
const standing = async (kingdom: number) => {
  const [actor] = (await ma.as('dm', 'query_actors', { kingdom_id: kingdom, limit: 1 })).body.result.items;
  return { x: actor.x as number, y: actor.y as number };
};
const json = (read: ReadResourceResult) => JSON.parse((read.contents[0] as { text: string }).text);
const updates = (seen: ReturnType<typeof recordNotifications>, uri: string) =>
  seen.filter((n) => n.notification.method === 'notifications/resources/updated' && (n.notification.params as { uri: string }).uri === uri);
const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('reads are fogged like the commands behind them', async (t) => {
  const pictures = async (client: Client) => {
    const read = await client.readResource({ uri: 'world://map.png' });
    const content = read.contents[0] as { mimeType: string; blob: string };
    t.equal(content.mimeType, 'image/png');
    return Buffer.from(content.blob, 'base64');
  };
  for (const [i, { via, client }] of player.entries()) {
    t.match(json(await client.readResource({ uri: 'world://state' })), { width: 256, height: 256, tick: Number }, `${via}: world://state`);
    t.equal(
      json(await client.readResource({ uri: 'world://kingdoms' })).items.length,
      (await ma.as('p1', 'list_kingdoms', { include_wild: true })).body.result.count,
    );
    t.match(json(await client.readResource({ uri: 'world://capabilities' })), { commands: Array });
    t.match(json(await client.readResource({ uri: 'world://tile/10/12' })), { x: 10, y: 12, tile_id: String });
    const kingdom = json(await client.readResource({ uri: `world://kingdom/${theirs}` }));
    t.equal(kingdom.kingdom.id, theirs);
    t.same(kingdom.cities, [], `${via}: under partial intel, no city of another kingdom`);
    t.ok(json(await client.readResource({ uri: `world://kingdom/${mine}` })).cities.length > 0, `${via}: its own cities`);
    await t.rejects(client.readResource({ uri: 'world://tile/99999/1' }), { code: -32002 }, `${via}: off the map`);
    await t.rejects(client.readResource({ uri: 'world://nowhere' }), { code: -32002 }, `${via}: no such resource`);

    // The map a player may see is drawn from observe: another kingdom's new people change nothing in it.
    const before = await pictures(client);
    const image = PNG.sync.read(before);
    t.same([image.width, image.height], [256, 256], `${via}: the observe grid, 64 cells of 4 pixels`);
    const godBefore = await pictures(god[i]!.client);
    t.equal(PNG.sync.read(godBefore).width, 256, 'the god gets the game’s own picture (a screenshot of the 256-tile map)');
    const there = await standing(theirs);
    t.equal((await ma.as('dm', 'spawn', { entity_id: 'human', x: there.x, y: there.y, count: 50 })).status, 200);
    t.same(await pictures(client), before, `${via}: the player's map shows no one else's people`);
    t.notSame(await pictures(god[i]!.client), godBefore, `${via}: the god's map does`);
  }
});

t.test('world://events under partial intel: notified of its own kingdom’s events, never of a hidden one', async (t) => {
  const sessions = player;
  const seen = sessions.map(({ client }) => recordNotifications(client));
  for (const { client } of sessions) {
    await client.subscribeResource({ uri: 'world://events' });
    // Read to the end: the session's cursor is now.
    await client.readResource({ uri: 'world://events' });
  }
  const there = await standing(theirs);
  for (let i = 0; i < 3; i++) t.equal((await ma.as('dm', 'spawn', { entity_id: 'human', x: there.x, y: there.y, count: 2 })).status, 200);
  const hidden = (await ma.as('dm', 'recv_events', { since_seq: 0, kinds: ['spawned'], max: 1000 })).body.result.items.filter((e: { kingdom_ids: number[] }) =>
    e.kingdom_ids.includes(theirs),
  );
  t.ok(hidden.length >= 3, 'the god sees spawned events naming the other kingdom');
  // Wider than the once-a-second batching, and than the credential's one-second look at the bridge.
  await quiet(2_500);
  for (const [i, { via }] of sessions.entries()) t.same(updates(seen[i]!, 'world://events'), [], `${via}: not a word of the hidden events`);

  const here = await standing(mine);
  t.equal((await ma.as('p1', 'spawn', { entity_id: 'human', x: here.x, y: here.y })).status, 200);
  await until(() => seen.every((s) => updates(s, 'world://events').length > 0), 5_000, 'the update of its own event');
  for (const [i, { via, client }] of sessions.entries()) {
    const read = json(await client.readResource({ uri: 'world://events' }));
    t.ok(
      read.items.some((e: { kind: string; kingdom_ids: number[] }) => e.kind === 'spawned' && e.kingdom_ids.includes(mine)),
      `${via}: its own spawn is there`,
    );
    t.notOk(
      read.items.some((e: { kingdom_ids: number[] }) => e.kingdom_ids.includes(theirs)),
      `${via}: nothing naming the hidden kingdom`,
    );
    t.equal(updates(seen[i]!, 'world://events').length, 1, `${via}: one update for the spawn and its record`);
    await client.unsubscribeResource({ uri: 'world://events' });
  }
  t.equal((await ma.as('p1', 'spawn', { entity_id: 'human', x: here.x, y: here.y })).status, 200);
  await quiet(1_500);
  for (const [i, { via }] of sessions.entries()) t.equal(updates(seen[i]!, 'world://events').length, 1, `${via}: none after unsubscribe`);
});

t.test('at most one update a second per resource; a tile and a kingdom by their content; state as the world moves', async (t) => {
  const sessions = god;
  const here = await standing(mine);
  const seen = sessions.map(({ client }) => recordNotifications(client));
  const far = { x: (here.x + 128) % 256, y: (here.y + 128) % 256 };
  for (const { client } of sessions) {
    for (const uri of ['world://events', 'world://state', `world://tile/${here.x}/${here.y}`, `world://tile/${far.x}/${far.y}`]) {
      await client.subscribeResource({ uri });
    }
  }
  const started = Date.now();
  // Ten actions in about two seconds, each an event the god sees.
  for (let i = 0; i < 10; i++) {
    await ma.as('dm', 'spawn', { entity_id: 'sheep', x: here.x, y: here.y });
    await quiet(200);
  }
  await quiet(1_500);
  const span = (Date.now() - started) / 1_000;
  for (const [i, { via }] of sessions.entries()) {
    const events = updates(seen[i]!, 'world://events');
    t.ok(events.length >= 2 && events.length <= Math.ceil(span) + 1, `${via}: ${events.length} updates of world://events in ${span.toFixed(1)} s`);
    for (let n = 1; n < events.length; n++) t.ok(events[n]!.at - events[n - 1]!.at >= 900, `${via}: a second apart (${events[n]!.at - events[n - 1]!.at} ms)`);
    t.ok(updates(seen[i]!, `world://tile/${here.x}/${here.y}`).length >= 1, `${via}: the tile where they were spawned changed`);
    t.same(updates(seen[i]!, `world://tile/${far.x}/${far.y}`), [], `${via}: a tile nothing happened on did not`);
  }
  const stateBefore = seen.map((s) => updates(s, 'world://state').length);
  t.equal((await ma.as('dm', 'step', { ticks: 3 })).status, 200);
  await until(() => seen.every((s, i) => updates(s, 'world://state').length > stateBefore[i]!), 5_000, 'world://state after a step');
  for (const { client } of sessions) {
    for (const uri of ['world://events', 'world://state', `world://tile/${here.x}/${here.y}`, `world://tile/${far.x}/${far.y}`]) {
      await client.unsubscribeResource({ uri });
    }
  }
});

t.test('completions: kingdom ids, actor ids and tile coordinates, as the credential may read them', async (t) => {
  const kingdoms = (await ma.as('dm', 'list_kingdoms', { include_wild: true })).body.result.items.map((k: { id: number }) => String(k.id));
  for (const { via, client } of [...player, ...god]) {
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'play_kingdom' }, argument: { name: 'kingdom', value: '' } });
    t.same(prompt.completion.values, kingdoms, `${via}: every kingdom id`);
    const template = await client.complete({ ref: { type: 'ref/resource', uri: 'world://kingdom/{id}' }, argument: { name: 'id', value: '1' } });
    t.same(
      template.completion.values,
      kingdoms.filter((id: string) => id.startsWith('1')),
      `${via}: the ids that start so`,
    );
    const x = await client.complete({ ref: { type: 'ref/resource', uri: 'world://tile/{x}/{y}' }, argument: { name: 'x', value: '25' } });
    t.same(x.completion.values, ['25', '250', '251', '252', '253', '254', '255'], `${via}: columns of the 256-tile map`);
    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'no_such_prompt' }, argument: { name: 'x', value: '' } });
    t.same(none.completion.values, []);
  }
  for (const { via, client } of god) {
    const race = await client.complete({ ref: { type: 'ref/prompt', name: 'run_scenario' }, argument: { name: 'race', value: 'hu' } });
    t.same(race.completion.values, ['human'], `${via}: actor ids`);
  }
});
