// Every role against every command over HTTP: allowed (anything but 403) or 403 PERMISSION_DENIED
// naming the missing permission, checked before any game-state work.
import t from 'tap';
import { missingPermission, ROLE_MASKS } from '../../src/auth/permissions.ts';
import { COMMANDS } from '../../src/commands/index.ts';
import { agent, startAgents } from './helpers.ts';

t.setTimeout(180_000);

t.test('role × command', async (t) => {
  const { as, b } = await startAgents(t, {
    scenario: 'sandbox',
    agents: [agent('zeus', 'god'), agent('pawn', 'faction_player', { kingdom_claim: 'auto:0' }), agent('owl', 'observer'), agent('bard', 'narrator')],
  });
  const power = (await as('zeus', 'list_powers')).body.result.items.find((p: { is_toggle?: boolean; supports_radius?: boolean }) => !p.is_toggle).id;
  const actor = (await as('zeus', 'list_actors')).body.result.items[0].id;
  const tile = (await as('zeus', 'list_tiles')).body.result.items[0].id;
  const args: Record<string, unknown> = {
    send_message: { to: 'zeus', content: 'hello' },
    invoke_power: { power_id: power, x: 5, y: 5 },
    spawn: { entity_id: actor, x: 100, y: 100 },
    paint_tile: { x: 3, y: 3, tile_id: tile },
    get_tile: { x: 1, y: 1 },
    screenshot: { max_dimension: 32, format: 'png' },
    set_speed: { speed_id: 'x1' },
    generate_world: { zone_x: 2, zone_y: 2, seed: 5 },
    save_world: { folder: 'roles' },
    load_world: { path: 'no-such-save' },
    step: { ticks: 1 },
    rewind: { id: 1 },
    savepoint_drop: { id: 1 },
    record_start: { name: 'roles' },
  };
  t.equal(COMMANDS.length, 38); // 28 of v0.3 + recv_events (decisions §7) + batch (§8) + 5 of research mode (§12) + observe + 2 of episodes
  for (const role of ['god', 'faction_player', 'observer', 'narrator'] as const) {
    const id = { god: 'zeus', faction_player: 'pawn', observer: 'owl', narrator: 'bard' }[role];
    for (const def of COMMANDS) {
      const reply = await as(id, def.name, args[def.name] ?? {});
      const missing = missingPermission(def.permission, ROLE_MASKS[role]);
      if (missing === null) {
        t.not(reply.status, 403, `${role} may ${def.name} (got ${reply.status} ${reply.body.error?.code ?? ''})`);
      } else {
        t.equal(reply.status, 403, `${role} may not ${def.name}`);
        t.equal(reply.body.error?.code, 'PERMISSION_DENIED');
        t.match(reply.body.error?.message, missing.split(' or ')[0]!, `${role}/${def.name}: the message names ${missing}`);
      }
    }
  }
  t.equal((await as('bard', 'send_message', { to: '*', content: 'news' })).status, 200, 'a narrator may broadcast');
  const denied = await as('owl', 'send_message', { to: '*', content: 'news' });
  t.equal(denied.status, 403, 'an observer may not broadcast');
  t.match(denied.body.error.message, /send_broadcast/);
  t.equal(b.bridge.stats().slotsInUse, 0);
});
