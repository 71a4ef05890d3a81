// A faction player's token in the viewer (decisions §9, §7, §11): the same API, so its feed holds
// global events and its own kingdom's, never another kingdom's; its map shows its own actors only;
// and it makes no call its token may not (no console error from a refused request).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';
import { launch, openViewer } from './browser.ts';

const secret = (id: string) => `${id}-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789`;

const browser = await launch(t);
if (browser) {
  const dir = tempDir('gcb-view-agents-');
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(48)}"\n`);
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      scenario: 'pvp',
      partial_intel: true,
      agents: [
        { id: 'zeus', role: 'god', token: secret('zeus') },
        { id: 'athena', role: 'faction_player', kingdom_claim: 'auto:0', token: secret('athena') },
        { id: 'ares', role: 'faction_player', kingdom_claim: 'auto:1', token: secret('ares') },
      ],
    }),
  );
  const b = await startTestBridge(t, { configDir: dir, game: SANDBOX_GAME });
  const as = (id: string, name: string, args?: unknown) => b.cmd(name, args, { headers: { authorization: `Bearer ${secret(id)}` } });

  t.test("a faction token's feed holds no other kingdom's events", async (t) => {
    const mine = (await as('athena', 'whoami')).body.result.claimed_kingdom_id as number;
    const start = (await as('zeus', 'get_world_state')).body.tick as number;
    const { page, errors } = await openViewer(browser, b.bridge.url, secret('athena'));
    await page.waitForSelector('.feed-panel .pill.on');
    // Both kingdoms act: zeus spawns into each side's land while the world runs.
    const { items: kingdoms } = (await as('zeus', 'list_kingdoms')).body.result;
    for (const k of kingdoms.slice(0, 2)) {
      const city = (await as('zeus', 'list_cities', { kingdom_id: k.id })).body.result.items[0];
      const near = city ? (await as('zeus', 'query_actors', { kingdom_id: k.id, limit: 1 })).body.result.items[0] : null;
      if (near) await as('zeus', 'spawn', { entity_id: 'sheep', x: near.x, y: near.y, count: 2 });
    }
    await page.waitForTimeout(3000);
    const shown: string[] = await page.$$eval('#feed li[data-kind]', (items) => items.map((li: any) => li.dataset.kingdoms));
    t.ok(shown.length > 0, `the feed shows events (${shown.length})`);
    const foreign = shown.filter((ids) => ids !== '' && !ids.split(',').map(Number).includes(mine));
    t.same(foreign, [], 'no event about another kingdom only');
    // Not vacuous: the god saw events about the other kingdom in the same time.
    const all = (await as('zeus', 'recv_events', { since_seq: 0, max: 1000 })).body.result.items as Array<{ tick: number; kingdom_ids: number[] }>;
    t.ok(
      all.some((e) => e.tick >= start && e.kingdom_ids.length > 0 && !e.kingdom_ids.includes(mine)),
      'another kingdom had events the faction feed left out',
    );
    // The map: athena's actors only (the same fog query_actors gives her).
    const kingdomsOnMap = await page.evaluate(() => (globalThis as any).document.querySelector('.map-panel .muted.small')?.textContent ?? '');
    t.match(kingdomsOnMap, /terrain needs read_all/);
    t.match(await page.textContent('.bridge-panel'), /need a token with read_all/);
    t.same(errors, [], 'no refused call, no console error');
    await page.context().close();
  });
}
