// discovery: list_tiles, list_actors, list_powers, list_speeds over HTTP on the sandbox.
import t from 'tap';
import { fails, ok, startSandbox } from './helpers.ts';

t.test('discovery commands', async (t) => {
  const b = await startSandbox(t);

  await t.test('list_tiles: tile types in items, top tiles in top_tiles, each with its properties', async (t) => {
    const r = await ok(t, b, 'list_tiles');
    t.equal(r.count, r.items.length);
    t.equal(r.top_count, r.top_tiles.length);
    const ids = r.items.map((i: { id: string }) => i.id);
    const tops = r.top_tiles.map((i: { id: string }) => i.id);
    t.ok(ids.includes('grass') && ids.includes('deep_ocean'), 'tile types are listed');
    t.ok(tops.includes('tree_oak') && tops.includes('house'), 'top tiles are listed');
    t.notOk(
      ids.some((id: string) => tops.includes(id)),
      'items holds tile_id values only, never top ids',
    );
    t.match(
      r.items.find((i: { id: string }) => i.id === 'deep_ocean'),
      { id: 'deep_ocean', water: true },
    );
  });

  await t.test('list_actors: ids with race', async (t) => {
    const r = await ok(t, b, 'list_actors');
    t.equal(r.count, r.items.length);
    t.ok(r.count > 5);
    for (const item of r.items) t.match(item, { id: String, race: String });
    t.match(
      r.items.find((i: { id: string }) => i.id === 'human'),
      { race: 'human' },
    );
    t.match(
      r.items.find((i: { id: string }) => i.id === 'zombie'),
      { race: 'undead' },
    );
  });

  await t.test('list_powers: supports_radius and is_toggle', async (t) => {
    const r = await ok(t, b, 'list_powers');
    t.equal(r.count, r.items.length);
    const byId = new Map(r.items.map((p: { id: string }) => [p.id, p]));
    t.match(byId.get('lightning'), { supports_radius: false, is_toggle: false });
    t.match(byId.get('fire'), { supports_radius: true, is_toggle: false });
    t.match(byId.get('rain_toggle'), { is_toggle: true });
  });

  await t.test('list_speeds: the catalogue ids, multipliers and the current speed', async (t) => {
    const r = await ok(t, b, 'list_speeds');
    t.same(
      r.items.map((s: { id: string }) => s.id),
      ['slow_mo', 'x1', 'x2', 'x3', 'x4', 'x5', 'x10', 'x15', 'x20', 'x40'],
    );
    t.equal(r.count, 10);
    t.match(r.items[0], { id: 'slow_mo', multiplier: 0.5 });
    t.equal(r.current, 'x1');
  });

  await t.test('they take no args: anything else is BAD_ARGS', async (t) => {
    for (const name of ['list_tiles', 'list_actors', 'list_powers', 'list_speeds']) {
      await fails(t, b, name, { layer: 'top' }, 400, 'BAD_ARGS');
    }
  });
});
