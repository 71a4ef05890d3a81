// Kingdoms form, cities grow, kingdoms meet and go to war; ids are stable and never reused.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import { buildWorld } from '../../src/game/generate.ts';
import { tick } from '../../src/game/simulation.ts';
import { TOP } from '../../src/game/assets.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { DEFAULT, openLand, runTicks } from './helpers.ts';

t.test('the default world starts with civilised kingdoms, capitals, kings and a few hundred actors', (t) => {
  game.init(DEFAULT);
  const state = game.getWorldState();
  t.equal(state.width, 256);
  t.equal(state.seed, 1234);
  t.ok(state.population_alive >= 200 && state.population_alive <= 600, `${state.population_alive} actors`);
  const kingdoms = game.listKingdoms(false);
  t.ok(kingdoms.length >= 3, `${kingdoms.length} kingdoms`);
  t.same(new Set(kingdoms.map((k) => k.race)), new Set(['human', 'elf', 'orc', 'dwarf']));
  for (const k of kingdoms) {
    t.equal(k.wild, false);
    t.type(k.king_name, 'string');
    t.ok(k.capital_id !== null && k.cities_count >= 1 && k.units_count > 5);
  }
  t.same(
    game.kingdomOrder(),
    kingdoms.map((k) => k.id),
  );
  const wild = game.listKingdoms(true).filter((k) => k.wild);
  t.ok(wild.length >= 3, 'animals live in wild kingdoms');
  t.ok(wild.every((k) => k.king_name === null && k.capital_id === null));
  const cities = game.listCities();
  t.equal(cities.length, state.cities_alive);
  for (const c of cities) {
    t.ok(c.building_count >= 4);
    t.type(c.leader_name, 'string');
    t.equal(c.kingdom_name, kingdoms.find((k) => k.id === c.kingdom_id)!.name);
  }
  t.same(
    game.listCities(kingdoms[0]!.id).map((c) => c.kingdom_id),
    [kingdoms[0]!.id],
  );
  t.same(game.listCities(9999), []);
  t.end();
});

t.test('cities grow: more people, more houses, new cities after a while', (t) => {
  game.init(DEFAULT);
  const before = game.listCities();
  const units = before.reduce((sum, c) => sum + c.unit_count, 0);
  const houses = before.reduce((sum, c) => sum + c.building_count, 0);
  runTicks(game, 4000);
  const after = game.listCities();
  t.ok(after.reduce((sum, c) => sum + c.unit_count, 0) > units * 1.5, 'population grew');
  t.ok(after.reduce((sum, c) => sum + c.building_count, 0) > houses * 1.5, 'houses were built');
  t.ok(game.getWorldState().cities_ever_created > before.length, 'colonies were founded');
  t.end();
});

t.test('nomads found a kingdom with a capital on free land', (t) => {
  game.init(DEFAULT);
  const before = game.getWorldState().kingdoms_ever_created;
  const land = openLand(game.snapshotWorld() as SandboxSnapshot, 4);
  game.spawn('orc', land.x, land.y, 6, true);
  runTicks(game, 400);
  const after = game.listKingdoms(false);
  t.equal(game.getWorldState().kingdoms_ever_created, before + 1);
  const founded = after[after.length - 1]!;
  t.equal(founded.race, 'orc');
  t.equal(founded.id, Math.max(...after.map((k) => k.id)), 'new ids go up');
  t.ok(founded.capital_id !== null);
  t.ok(founded.units_count >= 1);
  t.end();
});

t.test('kingdoms that meet go to war; a kingdom that dies keeps its id to itself', (t) => {
  // Internal access: run a 2x2 world (kingdoms close together) fast and watch the records.
  const w = buildWorld({ zonesX: 2, zonesY: 2, seed: 77 });
  let warAt = -1;
  for (let n = 0; n < 6000 && warAt < 0; n++) {
    tick(w);
    if (w.kingdoms.some((k) => k.wars.length > 0)) warAt = w.tick;
  }
  t.ok(warAt > 0, `war declared at tick ${warAt}`);
  const [a, b] = w.kingdoms.filter((k) => k.wars.length > 0);
  t.ok(a && b && a.wars.includes(b.id) && b.wars.includes(a.id), 'wars are mutual');
  const ids = w.kingdoms.map((k) => k.id);
  t.same(
    ids,
    ids.map((_, n) => n + 1),
    'ids are 1..n in creation order, never reused',
  );
  // Through wars, conquests and abandoned cities the bookkeeping stays exact.
  for (let n = 0; n < 3000; n++) tick(w);
  let houses = 0;
  for (let i = 0; i < w.owner.length; i++) if (w.owner[i] !== 0 && w.topType[i] === TOP.house) houses++;
  t.equal(
    w.cities.reduce((sum, c) => sum + c.buildings, 0),
    houses,
    'building counts',
  );
  t.equal(w.civAlive, w.kingdoms.filter((k) => k.alive && !k.wild).length, 'live kingdoms');
  t.equal(w.citiesAlive, w.cities.filter((c) => c.alive).length, 'live cities');
  for (const c of w.cities) if (!c.alive) t.equal(w.owner.indexOf(c.id), -1, `fallen city ${c.id} owns no land`);
  t.end();
});
