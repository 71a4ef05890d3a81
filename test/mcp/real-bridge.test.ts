// decisions §14 end to end: the SDK's client through gcb mcp (a process over stdio, and Streamable
// HTTP) against a real bridge, on the research game whose ticks take a known time:
// - a call with `_meta.progressToken` gets notifications/progress from the bridge's own reports:
//   a step (ticks done of ticks) and generate_world (its phases), rising, none past the total,
//   none after the result;
// - notifications/cancelled for a call queued behind a long step: the action never runs (the world
//   and the events say so) and its slot is free while the step still runs.
// The per-credential tool list and PERMISSION_DENIED against a real bridge are per-credential.test.ts's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { agent, token } from '../multi-agent/helpers.ts';
import { RESEARCH_GAME } from '../research/helpers.ts';
import { bothTransports, mcpServer, recordWire } from './helpers.ts';

// Real bridges and a gcb mcp process per transport, on a loaded machine.
t.setTimeout(180_000);

const GOD = 'zeus';
const PLAYER = 'ares';
const MS_PER_TICK = 5;

const dir = tempDir('gcb-mcp-real-');
writeConfig(dir, { clock: 'lockstep' });
writeFileSync(join(dir, 'agents.json'), JSON.stringify({ scenario: 'sandbox', agents: [agent(GOD, 'god'), agent(PLAYER, 'faction_player')] }));
const b = await startTestBridge(t, { game: RESEARCH_GAME, gameOptions: { msPerTick: MS_PER_TICK }, configDir: dir });
const asGod = { headers: { authorization: `Bearer ${token(GOD)}` } };
const mcp = await mcpServer(t, b.bridge.url);
const [players, gods] = await Promise.all([bothTransports(t, mcp, b.bridge.url, token(PLAYER)), bothTransports(t, mcp, b.bridge.url, token(GOD))]);

const tick = async () => ((await (await b.fetch('/health', asGod)).json()) as { tick: number }).tick;

/** A tool call with a progress token (the SDK sends one when onprogress is given), and what it was told. */
async function withProgress(client: (typeof players)[number]['client'], name: string, args: Record<string, unknown>) {
  const seen: Progress[] = [];
  const started = Date.now();
  const result = (await client.callTool({ name, arguments: args }, undefined, { onprogress: (progress) => void seen.push(progress) })) as CallToolResult;
  return { result, seen, seconds: (Date.now() - started) / 1_000 };
}

t.test("a faction player's step of 300 ticks: ticks done of 300, rising, at most about ten a second", async (t) => {
  for (const { via, client } of players) {
    const wire = recordWire(client);
    const { result, seen, seconds } = await withProgress(client, 'worldbox_step', { ticks: 300 });
    t.notOk(result.isError, `${via}: the step answered`);
    t.match(result.structuredContent, { ticks: 300 });
    t.ok(seen.length >= 2, `${via}: several notifications over a step of about ${(300 * MS_PER_TICK) / 1_000} s (${seen.length} in ${seconds.toFixed(2)} s)`);
    t.ok(seen.length <= Math.ceil(seconds * 10) + 1, `${via}: at most ten a second`);
    t.ok(
      seen.every((p) => p.total === 300 && p.progress >= 1 && p.progress <= 300 && /^step: \d+ of 300$/.test(p.message ?? '')),
      `${via}: ticks done of the step's 300`,
    );
    t.ok(
      seen.every((p, i) => i === 0 || p.progress > seen[i - 1]!.progress),
      `${via}: each further than the last (${seen.map((p) => p.progress).join(', ')})`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.same(
      wire.slice(wire.findIndex((m) => 'result' in m) + 1).filter((m) => 'method' in m && m.method === 'notifications/progress'),
      [],
      `${via}: none after the result`,
    );
  }
});

t.test("the god's generate_world: its phases, by number and name", async (t) => {
  for (const { via, client } of gods) {
    const { result, seen } = await withProgress(client, 'worldbox_generate_world', { zone_x: 2, zone_y: 2, seed: 9 });
    t.notOk(result.isError, `${via}: the world was made`);
    t.ok(seen.length >= 1, `${via}: told (${seen.length})`);
    t.match(seen[0], { progress: 1, total: 2, message: 'generate_world: generate (1 of 2)' }, `${via}: the first phase goes at once`);
    t.ok(
      seen.every(
        (p, i) => p.total === 2 && /^generate_world: (generate|install) \(\d of 2\)$/.test(p.message ?? '') && (i === 0 || p.progress > seen[i - 1]!.progress),
      ),
      `${via}: phases of two, rising`,
    );
  }
});

t.test('notifications/cancelled for a spawn queued behind a long step: it never runs, and its slot is free at once', async (t) => {
  const population = async () => (await b.cmd('get_world_state', undefined, asGod)).body.result.population_alive as number;
  const spawns = async () =>
    ((await b.cmd('recv_events', { since_seq: 0, kinds: ['command'], max: 1000 }, asGod)).body.result.items as Array<{ name: string }>).filter(
      (r) => r.name === 'spawn',
    ).length;
  const spawnsAtStart = await spawns();
  for (const { via, client } of gods) {
    const [populationBefore, spawnsBefore, tickBefore] = [await population(), await spawns(), await tick()];
    // A step of about 2 s over plain HTTP, started (its first tick has run).
    const step = b.cmd('step', { ticks: 400 }, asGod);
    await until(() => b.bridge.stats().dispatcherPending === 1, 10_000, 'the step to be queued');
    for (let now = tickBefore; now === tickBefore;) now = await tick();

    const abort = new AbortController();
    const spawn = client.callTool({ name: 'worldbox_spawn', arguments: { entity_id: 'walker', x: 3, y: 3 } }, undefined, { signal: abort.signal });
    await until(() => b.bridge.stats().dispatcherPending === 2 && b.bridge.stats().slotsInUse === 2, 10_000, 'the spawn to be queued behind the step');
    abort.abort('the user changed their mind');
    await t.rejects(spawn, /changed their mind|abort/i, `${via}: the call ends at once`);
    await until(() => b.bridge.stats().slotsInUse === 1, 10_000, "the spawn's slot to be free");
    t.ok((await tick()) < tickBefore + 400, `${via}: freed while the step still ran`);

    const stepped = await step;
    t.equal(stepped.status, 200, `${via}: the step ran to its end`);
    t.equal(stepped.body.result.ticks, 400);
    await until(() => b.bridge.stats().dispatcherPending === 0, 10_000, 'the queue to empty');
    t.equal(await population(), populationBefore, `${via}: the spawn never ran`);
    t.equal(await spawns(), spawnsBefore, `${via}: no command record of it`);
  }
  // The session goes on: the same call, not cancelled, runs once.
  const again = (await gods[0]!.client.callTool({ name: 'worldbox_spawn', arguments: { entity_id: 'walker', x: 3, y: 3 } })) as CallToolResult;
  t.notOk(again.isError);
  t.equal(await spawns(), spawnsAtStart + 1, 'the one spawn that was not cancelled');
});
