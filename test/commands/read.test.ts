// read: get_tile, list_kingdoms, list_cities, query_actors, screenshot over HTTP on the sandbox.
// The world is paused so counts taken by different commands agree.
import t from 'tap';
import { decode as decodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { fails, ok, startSandbox } from './helpers.ts';

t.test('read commands', async (t) => {
  const b = await startSandbox(t);
  await ok(t, b, 'pause');
  const world = await ok(t, b, 'get_world_state');

  await t.test('get_tile', async (t) => {
    await ok(t, b, 'paint_tile', { x: 7, y: 9, tile_id: 'forest', top_id: 'tree_pine' });
    const tile = await ok(t, b, 'get_tile', { x: 7, y: 9 });
    t.match(tile, { x: 7, y: 9, tile_id: 'forest', top_id: 'tree_pine', height: Number, actors: Array, actor_count: Number });
    t.equal(tile.actor_count, tile.actors.length);
    const corner = await ok(t, b, 'get_tile', { x: world.width - 1, y: world.height - 1 });
    t.equal(corner.x, world.width - 1);
    for (const [x, y] of [
      [-1, 0],
      [0, -1],
      [world.width, 0],
      [0, world.height],
    ]) {
      const error = await fails(t, b, 'get_tile', { x, y }, 400, 'OUT_OF_BOUNDS');
      t.match(error.message, new RegExp(`${world.width}x${world.height}`), 'the message names the map size');
    }
    await fails(t, b, 'get_tile', { x: 1 }, 400, 'BAD_ARGS');
    await fails(t, b, 'get_tile', { x: '1', y: 1 }, 400, 'BAD_ARGS');
  });

  await t.test('list_kingdoms', async (t) => {
    const civ = await ok(t, b, 'list_kingdoms');
    t.equal(civ.count, civ.items.length);
    t.equal(civ.count, world.kingdoms_alive);
    t.ok(
      civ.items.every((k: { wild: boolean }) => !k.wild),
      'wild factions are left out by default',
    );
    t.match(civ.items[0], { id: Number, name: String, race: String, cities_count: Number, units_count: Number, wild: false });
    const all = await ok(t, b, 'list_kingdoms', { include_wild: true });
    t.ok(all.count >= civ.count);
    t.ok(
      all.items.some((k: { wild: boolean }) => k.wild),
      'include_wild adds the wild factions',
    );
    await fails(t, b, 'list_kingdoms', { include_wild: 'yes' }, 400, 'BAD_ARGS');
  });

  await t.test('list_cities', async (t) => {
    const all = await ok(t, b, 'list_cities');
    t.equal(all.count, all.items.length);
    t.equal(all.count, world.cities_alive);
    t.match(all.items[0], { id: Number, name: String, kingdom_id: Number, kingdom_name: String, building_count: Number, unit_count: Number });
    const kingdomId = all.items[0].kingdom_id;
    const one = await ok(t, b, 'list_cities', { kingdom_id: kingdomId });
    t.ok(one.count >= 1 && one.items.every((c: { kingdom_id: number }) => c.kingdom_id === kingdomId), 'kingdom_id filters');
    t.same(await ok(t, b, 'list_cities', { kingdom_id: 999_999 }), { items: [], count: 0 }, 'an unknown kingdom matches nothing');
    await fails(t, b, 'list_cities', { kingdom_id: 1.5 }, 400, 'BAD_ARGS');
  });

  await t.test('query_actors', async (t) => {
    const first = await ok(t, b, 'query_actors', {});
    t.equal(first.matched, world.population_alive, 'every living actor matches no filter');
    t.match(first, { offset: 0, limit: 500 }, 'defaults: offset 0, limit 500');
    t.equal(first.returned, first.items.length);
    t.equal(first.has_more, first.matched > 500);
    t.match(first.items[0], { name: String, asset_id: String, x: Number, y: Number });

    const page1 = await ok(t, b, 'query_actors', { limit: 10 });
    const page2 = await ok(t, b, 'query_actors', { limit: 10, offset: 10 });
    t.equal(page1.returned, 10);
    t.equal(page1.has_more, true);
    t.same(page2.items[0], first.items[10], 'pages follow each other');
    const last = await ok(t, b, 'query_actors', { offset: first.matched });
    t.match(last, { returned: 0, has_more: false, matched: first.matched });

    const humans = await ok(t, b, 'query_actors', { race: 'human', limit: 5000 });
    t.ok(
      humans.items.every((a: { asset_id: string }) => a.asset_id === 'human'),
      'race filters',
    );
    const kingdomId = first.items.find((a: { kingdom_id: number | null }) => a.kingdom_id !== null).kingdom_id;
    const subjects = await ok(t, b, 'query_actors', { kingdom_id: kingdomId, limit: 5000 });
    t.ok(subjects.matched > 0 && subjects.items.every((a: { kingdom_id: number }) => a.kingdom_id === kingdomId), 'kingdom_id filters');
    const someone = first.items[0];
    const rect = { x: someone.x - 2, y: someone.y - 2, w: 5, h: 5 };
    const near = await ok(t, b, 'query_actors', { in_rect: rect, limit: 5000 });
    t.ok(near.matched >= 1);
    t.ok(
      near.items.every((a: { x: number; y: number }) => a.x >= rect.x && a.x < rect.x + 5 && a.y >= rect.y && a.y < rect.y + 5),
      'in_rect filters',
    );
    await ok(t, b, 'invoke_power', { power_id: 'meteorite', x: someone.x, y: someone.y });
    const dead = await ok(t, b, 'query_actors', { alive: false });
    t.ok(dead.matched >= 1, 'alive: false lists the dead');

    for (const args of [
      { limit: 0 },
      { limit: 5001 },
      { offset: -1 },
      { in_rect: { x: 0, y: 0, w: 0, h: 5 } },
      { in_rect: { x: 0, y: 0, w: 5 } },
      { in_rect: { x: 0, y: 0, w: 5, h: 5, z: 1 } },
      { alive: 1 },
      { name: 'x' },
    ]) {
      await fails(t, b, 'query_actors', args, 400, 'BAD_ARGS');
    }
  });

  await t.test('screenshot: real PNG and JPEG images', async (t) => {
    const png = await ok(t, b, 'screenshot', { format: 'png', max_dimension: 100 });
    t.match(png, { format: 'png', source_width: world.width, source_height: world.height });
    t.ok(png.width <= 100 && png.height <= 100 && Math.max(png.width, png.height) === 100, `scaled to fit 100 (${png.width}x${png.height})`);
    const pngBytes = Buffer.from(png.base64, 'base64');
    t.equal(png.bytes, pngBytes.length, 'bytes is the decoded length');
    const decodedPng = PNG.sync.read(pngBytes);
    t.equal(decodedPng.width, png.width);
    t.equal(decodedPng.height, png.height);
    t.ok(new Set(decodedPng.data).size > 10, 'the picture is not blank');

    const jpg = await ok(t, b, 'screenshot', {});
    t.match(jpg, { format: 'jpg', width: world.width, height: world.height }, 'defaults: jpg, 1280 (larger than the map: full size, never scaled up)');
    const jpgBytes = Buffer.from(jpg.base64, 'base64');
    t.equal(jpg.bytes, jpgBytes.length);
    const decodedJpg = decodeJpeg(jpgBytes, { useTArray: true });
    t.equal(decodedJpg.width, jpg.width);
    t.equal(decodedJpg.height, jpg.height);

    const rough = await ok(t, b, 'screenshot', { quality: 5 });
    t.ok(rough.bytes < jpg.bytes, `quality lowers the size (${rough.bytes} < ${jpg.bytes})`);
    const full = await ok(t, b, 'screenshot', { format: 'png', max_dimension: 0 });
    t.match(full, { width: world.width, height: world.height }, 'max_dimension 0: full size');

    for (const args of [{ format: 'gif' }, { quality: 0 }, { quality: 101 }, { max_dimension: -1 }, { max_dimension: 10_000 }, { scale: 2 }]) {
      await fails(t, b, 'screenshot', args, 400, 'BAD_ARGS');
    }
  });
});
