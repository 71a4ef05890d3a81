// action: spawn, paint_tile and one-pulse invoke_power over HTTP on the sandbox (pulsed runs:
// invoke-power-pulses.test.ts). The world is paused so what a command did stays where it put it.
import t from 'tap';
import { checkException, fails, ok, startSandbox } from './helpers.ts';

t.test('action commands', async (t) => {
  const b = await startSandbox(t);
  await ok(t, b, 'pause');
  // Known ground, whatever the generator made there: land at (20, 20), water at (40, 40).
  await ok(t, b, 'paint_tile', { x: 20, y: 20, tile_id: 'grass', radius: 4 });
  await ok(t, b, 'paint_tile', { x: 40, y: 40, tile_id: 'deep_ocean', radius: 3 });

  await t.test('paint_tile', async (t) => {
    const r = await ok(t, b, 'paint_tile', { x: 100, y: 100, tile_id: 'sand', radius: 2 });
    t.match(r, { center: { x: 100, y: 100 }, radius: 2, tile_id: 'sand', top_id: null, skipped: 0 });
    t.ok(r.painted > 1);
    t.equal((await ok(t, b, 'get_tile', { x: 101, y: 100 })).tile_id, 'sand', 'the disc is painted');

    const top = await ok(t, b, 'paint_tile', { x: 20, y: 20, top_id: 'tree_oak' });
    t.match(top, { radius: 0, tile_id: null, top_id: 'tree_oak', painted: 1, skipped: 0 }, 'radius defaults to 0: one tile');
    t.match(await ok(t, b, 'get_tile', { x: 20, y: 20 }), { tile_id: 'grass', top_id: 'tree_oak' });
    await ok(t, b, 'paint_tile', { x: 20, y: 20, tile_id: 'grass', top_id: 'flowers' });
    // top_id "none" (listed by list_tiles) clears the top tile.
    t.ok(
      (await ok(t, b, 'list_tiles')).top_tiles.some((top: { id: string }) => top.id === 'none'),
      'list_tiles lists "none"',
    );
    t.match(await ok(t, b, 'paint_tile', { x: 20, y: 20, top_id: 'none' }), { top_id: 'none', painted: 1 });
    t.match(await ok(t, b, 'get_tile', { x: 20, y: 20 }), { tile_id: 'grass', top_id: null }, 'the top is gone');
    await ok(t, b, 'paint_tile', { x: 20, y: 20, top_id: 'flowers' });

    const corner = await ok(t, b, 'paint_tile', { x: 0, y: 0, tile_id: 'sand', radius: 2 });
    t.ok(corner.skipped > 0, 'tiles of the brush off the map are skipped');
    t.equal(corner.painted + corner.skipped, r.painted + r.skipped, 'painted + skipped is the whole disc');

    const neither = await fails(t, b, 'paint_tile', { x: 5, y: 5 }, 400, 'BAD_ARGS');
    t.match(neither.message, /tile_id|top_id/);
    const tile = await fails(t, b, 'paint_tile', { x: 5, y: 5, tile_id: 'gras' }, 400, 'UNKNOWN_ASSET');
    t.equal(tile.did_you_mean[0], 'grass');
    t.ok(tile.did_you_mean.length <= 5);
    const topErr = await fails(t, b, 'paint_tile', { x: 5, y: 5, tile_id: 'grass', top_id: 'tree_ok' }, 400, 'UNKNOWN_ASSET');
    t.equal(topErr.did_you_mean[0], 'tree_oak');
    t.not((await ok(t, b, 'get_tile', { x: 5, y: 5 })).top_id, 'tree_ok', 'a refused paint changes nothing');
    await fails(t, b, 'paint_tile', { x: 256, y: 5, tile_id: 'grass' }, 400, 'OUT_OF_BOUNDS');
    await fails(t, b, 'paint_tile', { x: 5, y: -1, tile_id: 'grass' }, 400, 'OUT_OF_BOUNDS');
    await fails(t, b, 'paint_tile', { x: 5, y: 5, tile_id: 'grass', radius: 201 }, 400, 'BAD_ARGS');
    await fails(t, b, 'paint_tile', { x: 5, y: 5, tile_id: 'grass', radius: -1 }, 400, 'BAD_ARGS');
    await fails(t, b, 'paint_tile', { x: 5.5, y: 5, tile_id: 'grass' }, 400, 'BAD_ARGS');
    await fails(t, b, 'paint_tile', { x: 5, y: 5, tile_id: 7 }, 400, 'BAD_ARGS');
  });

  await t.test('spawn', async (t) => {
    const before = (await ok(t, b, 'get_world_state')).population_alive;
    const r = await ok(t, b, 'spawn', { entity_id: 'sheep', x: 20, y: 20, count: 3, adult: true });
    t.match(r, { entity_id: 'sheep', x: 20, y: 20, requested: 3 });
    t.equal(r.spawned + r.failed, 3);
    t.ok(r.spawned >= 1);
    t.equal(r.names.length, r.spawned);
    const tile = await ok(t, b, 'get_tile', { x: 20, y: 20 });
    t.ok(
      tile.actors.some((a: { name: string; asset_id: string }) => a.asset_id === 'sheep' && r.names.includes(a.name)),
      'the first lands on (x, y)',
    );
    t.equal((await ok(t, b, 'get_world_state')).population_alive, before + r.spawned);

    const one = await ok(t, b, 'spawn', { entity_id: 'human', x: 21, y: 20 });
    t.match(one, { requested: 1, spawned: 1, failed: 0 }, 'count defaults to 1');

    const unknown = await fails(t, b, 'spawn', { entity_id: 'humna', x: 20, y: 20 }, 400, 'UNKNOWN_ASSET');
    t.equal(unknown.did_you_mean[0], 'human');
    await fails(t, b, 'spawn', { entity_id: 'human', x: -1, y: 20 }, 400, 'OUT_OF_BOUNDS');
    await fails(t, b, 'spawn', { entity_id: 'human', x: 20, y: 256 }, 400, 'OUT_OF_BOUNDS');

    const water = await fails(t, b, 'spawn', { entity_id: 'human', x: 40, y: 40 }, 422, 'GAME_REJECTED');
    checkException(t, water);
    t.match(water.message, /land creature/);
    t.ok((await ok(t, b, 'spawn', { entity_id: 'fish', x: 40, y: 40 })).spawned >= 1, 'a water creature is fine there');

    const after = (await ok(t, b, 'get_world_state')).population_alive;
    for (const args of [
      { entity_id: 'human', x: 20, y: 20, count: 0 },
      { entity_id: 'human', x: 20, y: 20, count: 101 },
      { entity_id: 'human', x: 20, y: 20, adult: 'yes' },
      { entity_id: 'human', x: 20 },
      { x: 20, y: 20 },
      { entity_id: 'human', x: 20, y: 20, kingdom: 1 },
    ]) {
      await fails(t, b, 'spawn', args, 400, 'BAD_ARGS');
    }
    t.equal((await ok(t, b, 'get_world_state')).population_alive, after, 'refused spawns add nobody');
  });

  await t.test('invoke_power, one pulse', async (t) => {
    t.same(await ok(t, b, 'invoke_power', { power_id: 'lightning', x: 30, y: 30 }), { power_id: 'lightning', x: 30, y: 30, accepted: true, via: 'direct' });
    t.match(await ok(t, b, 'invoke_power', { power_id: 'rain', x: 30, y: 30, radius: 5, pulses: 1 }), { accepted: true, via: 'direct' });
    t.match(await ok(t, b, 'invoke_power', { power_id: 'spawn_sheep', x: 40, y: 40 }), { accepted: false }, 'the world may refuse a pulse: accepted false');
    const law = await ok(t, b, 'invoke_power', { power_id: 'world_peace', x: 1, y: 1 });
    t.equal(law.accepted, true, 'a toggle flips with one pulse');
    const laws = (await ok(t, b, 'list_powers')).items.find((p: { id: string }) => p.id === 'world_peace');
    t.equal(laws.active, true);
    await ok(t, b, 'invoke_power', { power_id: 'world_peace', x: 1, y: 1 });

    const unknown = await fails(t, b, 'invoke_power', { power_id: 'lightnin', x: 30, y: 30 }, 400, 'UNKNOWN_ASSET');
    t.equal(unknown.did_you_mean[0], 'lightning');
    await fails(t, b, 'invoke_power', { power_id: 'lightning', x: 300, y: 30 }, 400, 'OUT_OF_BOUNDS');
    const end = await fails(t, b, 'invoke_power', { power_id: 'fire', x: 30, y: 30, pulses: 2, x2: 30, y2: 999 }, 400, 'OUT_OF_BOUNDS');
    t.match(end.message, /x2, y2/);

    const toggle = await fails(t, b, 'invoke_power', { power_id: 'rain_toggle', x: 30, y: 30, pulses: 2 }, 422, 'GAME_REJECTED');
    checkException(t, toggle);
    t.match(toggle.message, /toggle/);
    const radius = await fails(t, b, 'invoke_power', { power_id: 'lightning', x: 30, y: 30, radius: 3 }, 422, 'GAME_REJECTED');
    checkException(t, radius);
    t.match(radius.message, /radius/);

    const shape = [
      { power_id: 'fire', x: 30, y: 30, pulses: 3, x2: 35 },
      { power_id: 'fire', x: 30, y: 30, pulses: 3, y2: 35 },
      { power_id: 'fire', x: 30, y: 30, x2: 35, y2: 35 },
      { power_id: 'fire', x: 30, y: 30, pulses: 1, x2: 35, y2: 35 },
      { power_id: 'fire', x: 30, y: 30, pulses: 0 },
      { power_id: 'fire', x: 30, y: 30, pulses: 201 },
      { power_id: 'fire', x: 30, y: 30, radius: 0 },
      { power_id: 'fire', x: 30, y: 30, radius: 51 },
      { power_id: 'fire', x: 30 },
      { power_id: 'fire', x: 30, y: 30, brush: 2 },
    ];
    for (const args of shape) await fails(t, b, 'invoke_power', args, 400, 'BAD_ARGS');
    // Validation order: the shape of the args first, even with an unknown power.
    await fails(t, b, 'invoke_power', { power_id: 'nope', x: 30, y: 30, x2: 1 }, 400, 'BAD_ARGS');
  });
});
