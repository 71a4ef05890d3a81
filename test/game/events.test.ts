// The sandbox reports what happens in its world through its host (decisions §7): every kind fires in
// a scenario built for it, with the declared fields and the kingdom list fog filters on; more than
// 256 actor events in a frame become per-kingdom population_changed summaries.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { A, ACTOR_INDEX, T } from '../../src/game/assets.ts';
import { createActor, nameOf } from '../../src/game/actors.ts';
import { FRAME_ACTOR_EVENTS, NO_KINGDOM, SANDBOX_EVENTS, WorldEvents } from '../../src/game/events.ts';
import { buildWorld } from '../../src/game/generate.ts';
import * as game from '../../src/game/index.ts';
import { census, declareWar, placeActor, recountAlive } from '../../src/game/kingdoms.ts';
import { applyPower, powerAsset } from '../../src/game/powers.ts';
import { flushBirths, tick } from '../../src/game/simulation.ts';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import { forDisc, ignite, setTileType, setTop, type World } from '../../src/game/world.ts';
import type { GameHost, GameInitOptions } from '../../src/shared/game-module.ts';
import { DEFAULT, findTile, openLand, runTicks, WATER } from './helpers.ts';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.ts';

interface Recorded {
  kind: string;
  fields: Record<string, any>;
  kingdomIds: number[];
}

/**
 * A host that records every event and checks each as it comes: a declared kind, exactly the
 * declared fields, plain JSON values, and a sorted list of distinct kingdom ids.
 */
function recorder() {
  const events: Recorded[] = [];
  const problems: string[] = [];
  const host: GameHost = {
    drainFrame() {},
    stopped: new Promise<void>(() => {}),
    emit(kind, fields = {}, kingdomIds = []) {
      const info = (SANDBOX_EVENTS as Record<string, { fields: Record<string, string> }>)[kind];
      if (!info) problems.push(`undeclared kind ${kind}`);
      else {
        const want = Object.keys(info.fields).sort().join();
        const got = Object.keys(fields).sort().join();
        if (want !== got) problems.push(`${kind}: fields ${got}, declared ${want}`);
      }
      if (JSON.stringify(JSON.parse(JSON.stringify(fields))) !== JSON.stringify(fields)) problems.push(`${kind}: fields are not plain JSON`);
      const ids = [...kingdomIds];
      if (!ids.every((id, n) => Number.isInteger(id) && id >= 0 && (n === 0 || id > ids[n - 1]!))) problems.push(`${kind}: kingdom ids ${ids}`);
      events.push({ kind, fields: structuredClone(fields), kingdomIds: ids });
    },
  };
  return {
    host,
    events,
    problems,
    of: (kind: string) => events.filter((e) => e.kind === kind),
    clear: () => void events.splice(0),
  };
}

type Recorder = ReturnType<typeof recorder>;

declare namespace Tap {
  type Test = import('tap').Test;
}

function checked(t: Tap.Test, rec: Recorder): void {
  t.same(rec.problems, [], 'every event declared, with exactly its fields');
}

/** The kingdom list of an actor event: its kingdom, NO_KINGDOM for a nomad. */
const actorKingdoms = (e: Recorded) => [e.fields.kingdom_id ?? NO_KINGDOM];

const id = (name: string) => ACTOR_INDEX.get(name)!;
const snap = () => game.snapshotWorld() as SandboxSnapshot;

function startGame(rec: Recorder, options: Partial<GameInitOptions> = {}): void {
  game.init({ ...DEFAULT, ...options }, rec.host);
}

/** A 2x2-zone world emptied of people and cities, with open grass around (64, 64), reporting to rec. */
function arena(rec: Recorder): World {
  const w = buildWorld({ zonesX: 2, zonesY: 2, seed: 7 });
  for (let i = 0; i < w.actorEnd; i++) w.a.alive[i] = 0;
  w.population = 0;
  w.freeCount = 0;
  w.actorEnd = 0;
  for (const c of w.cities) c.alive = false;
  for (const k of w.kingdoms) k.alive = k.wild;
  recountAlive(w);
  forDisc(w, 64, 64, 40, (i) => {
    setTileType(w, i, T.grass);
    setTop(w, i, 0);
    w.owner[i] = 0;
  });
  census(w);
  w.events = new WorldEvents(rec.host);
  return w;
}

function run(w: World, ticks: number): void {
  for (let n = 0; n < ticks; n++) tick(w);
}

/** A spot whose (2r+1)² square holds no actor and no city land: an action there touches nobody. */
function emptySpot(r: number): { x: number; y: number } {
  const s = snap();
  const occupied = new Set<number>();
  for (let i = 0; i < s.hwm; i++) if (s.actors.alive[i] === 1) occupied.add(Math.floor(s.actors.y[i]!) * s.width + Math.floor(s.actors.x[i]!));
  return findTile(s, (_id, x, y) => {
    for (let dy = -r - 1; dy <= r + 1; dy++) {
      for (let dx = -r - 1; dx <= r + 1; dx++) {
        const tx = x + dx;
        const ty = y + dy;
        if (tx < 0 || ty < 0 || tx >= s.width || ty >= s.height) return false;
        const i = ty * s.width + tx;
        if (s.tiles.owner[i] !== 0 || occupied.has(i)) return false;
      }
    }
    return true;
  });
}

/** A live city of the sandbox world with its centre and its kingdom's race. */
function someCity(): { id: number; kingdomId: number; x: number; y: number; race: string } {
  const s = snap();
  const city = s.cities.find((c) => c.alive)!;
  return { id: city.id, kingdomId: city.kingdomId, x: city.x, y: city.y, race: s.kingdoms[city.kingdomId - 1]!.race };
}

const wildKingdom = (race: string) => game.listKingdoms(true).find((k) => k.wild && k.race === race)?.id;

t.test('eventKinds comes from the one table, and holds every world kind of decisions §7 and nothing of the bridge', (t) => {
  t.same([...game.eventKinds], Object.keys(SANDBOX_EVENTS));
  for (const kind of [
    'actor_born',
    'actor_died',
    'population_changed',
    'spawned',
    'city_founded',
    'city_destroyed',
    'kingdom_founded',
    'kingdom_fell',
    'war_declared',
    'peace_made',
    'power_invoked',
    'tiles_painted',
    'paused',
    'resumed',
    'speed_changed',
    'window_opened',
    'window_dismissed',
  ]) {
    t.ok(game.eventKinds.includes(kind), kind);
  }
  for (const kind of ['world_generated', 'world_loaded', 'world_saved', 'enabled_changed', 'turn_changed', 'message', 'objective_changed', 'command']) {
    t.notOk(game.eventKinds.includes(kind), `${kind} is the bridge's`);
  }
  for (const [kind, info] of Object.entries(SANDBOX_EVENTS)) {
    t.ok(info.description.length > 10, `${kind} is described`);
    t.ok(Object.keys(info.fields).length > 0 && Object.values(info.fields).every((d) => d.length > 3), `${kind} describes its fields`);
  }
  t.end();
});

t.test('docs/sandbox-events.md has a section for every kind and names every field', (t) => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/sandbox-events.md'), 'utf8');
  const headings = doc
    .split('\n')
    .filter((l) => l.startsWith('### '))
    .flatMap((l) => l.slice(4).split(', '));
  t.same(headings.sort(), Object.keys(SANDBOX_EVENTS).sort(), 'one section per kind');
  for (const [kind, info] of Object.entries(SANDBOX_EVENTS)) {
    for (const field of Object.keys(info.fields)) t.match(doc, new RegExp(`\\b${field}\\b`), `${kind}.${field}`);
  }
  t.end();
});

t.test('window, pause and speed: one global event per change, none when nothing changed', (t) => {
  const rec = recorder();
  startGame(rec, { suppressStartupWindow: false });
  t.same(rec.events, [{ kind: 'window_opened', fields: { window: 'welcome' }, kingdomIds: [] }], 'the startup window at init');
  rec.clear();
  game.setPaused(true);
  game.setPaused(true);
  game.dismissWindow();
  game.dismissWindow();
  game.setPaused(false);
  game.setPaused(false);
  game.setSpeed('x5');
  game.setSpeed('x5');
  game.setSpeed('x1');
  t.same(
    rec.events.map((e) => [e.kind, e.fields, e.kingdomIds]),
    [
      ['paused', { effective_paused: true }, []],
      ['window_dismissed', { window: 'welcome' }, []],
      ['resumed', { effective_paused: false }, []],
      ['speed_changed', { speed_id: 'x5', multiplier: 5, previous: 'x1' }, []],
      ['speed_changed', { speed_id: 'x1', multiplier: 1, previous: 'x5' }, []],
    ],
  );

  // Resuming while a window is open: the world still stands still, and the event says so.
  startGame(rec, { suppressStartupWindow: false });
  rec.clear();
  game.setPaused(true);
  game.setPaused(false);
  t.same(rec.of('resumed')[0]?.fields, { effective_paused: true });

  const quiet = recorder();
  startGame(quiet, { suppressStartupWindow: true });
  t.same(quiet.events, [], 'no window, no window_opened');
  checked(t, rec);
  checked(t, quiet);
  t.end();
});

t.test('spawned: one per call, with its counts and names, naming the kingdoms it touched', (t) => {
  const rec = recorder();
  startGame(rec);
  const city = someCity();
  // Its own race in its own city: they join the kingdom.
  const home = game.spawn(city.race, city.x, city.y, 3, true);
  const [joined] = rec.of('spawned');
  t.same(joined, {
    kind: 'spawned',
    fields: { entity_id: city.race, x: city.x, y: city.y, requested: 3, spawned: home.spawned, failed: home.failed, names: home.names },
    kingdomIds: [city.kingdomId],
  });
  t.ok(home.spawned >= 1);

  // Wolves in that city: the wild wolves' kingdom and the city's.
  rec.clear();
  game.spawn('wolf', city.x, city.y, 2, true);
  t.same(
    rec.of('spawned')[0]?.kingdomIds,
    [city.kingdomId, wildKingdom('wolf')!].sort((p, q) => p - q),
  );

  // Sheep on open land: only the wild sheep's kingdom.
  const open = emptySpot(2);
  rec.clear();
  game.spawn('sheep', open.x, open.y, 4, false);
  t.same(rec.of('spawned')[0]?.kingdomIds, [wildKingdom('sheep')!]);

  // Civilised creatures on nobody's land are nomads: no kingdom, so fog hides them (as query_actors does).
  const wild = emptySpot(2);
  rec.clear();
  const nomads = game.spawn('orc', wild.x, wild.y, 2, true);
  t.same(rec.of('spawned')[0]?.kingdomIds, [NO_KINGDOM]);
  t.same(rec.of('spawned')[0]?.fields.names, nomads.names);

  // A refused spawn reports nothing; spawning is never reported as births.
  rec.clear();
  const water = findTile(snap(), (tile) => WATER.has(tile));
  t.throws(() => game.spawn('human', water.x, water.y, 1, true), { code: 'GAME_REJECTED' });
  t.same(rec.events, []);
  checked(t, rec);
  t.end();
});

t.test('power_invoked: one per accepted pulse; its deaths are actor_died under their own kingdoms; laws are global', (t) => {
  const rec = recorder();
  startGame(rec);
  const city = someCity();
  const spawned = game.spawn(city.race, city.x, city.y, 1, true);
  rec.clear();
  t.equal(game.invokePower('lightning', city.x, city.y, null), true);
  const [strike] = rec.of('power_invoked');
  t.same(strike?.fields, { power_id: 'lightning', x: city.x, y: city.y, radius: 2, active: null });
  t.ok(strike?.kingdomIds.includes(city.kingdomId), 'the struck city is named');
  const died = rec.of('actor_died');
  t.ok(
    died.some((e) => e.fields.name === spawned.names[0]),
    'the creature under the strike died',
  );
  for (const e of died) {
    t.equal(e.fields.cause, 'power');
    t.equal(e.fields.power_id, 'lightning');
    t.same(e.kingdomIds, actorKingdoms(e));
    t.ok(strike!.kingdomIds.includes(e.kingdomIds[0]!), "a victim's kingdom is among those the strike names");
  }
  t.ok(rec.events.indexOf(strike!) > rec.events.indexOf(died[0]!), 'deaths as they happen, the pulse once it is done');

  rec.clear();
  const empty = emptySpot(3);
  t.equal(game.invokePower('rain', empty.x, empty.y, 3), true);
  t.same(
    rec.events,
    [{ kind: 'power_invoked', fields: { power_id: 'rain', x: empty.x, y: empty.y, radius: 3, active: null }, kingdomIds: [] }],
    'touched nobody: global',
  );

  rec.clear();
  game.invokePower('rain_toggle', 5, 5, null);
  game.invokePower('rain_toggle', 5, 5, null);
  t.same(
    rec.events.map((e) => [e.fields.power_id, e.fields.active, e.fields.radius, e.kingdomIds]),
    [
      ['rain_toggle', true, 0, []],
      ['rain_toggle', false, 0, []],
    ],
  );

  rec.clear();
  const sheepSpot = emptySpot(1);
  t.equal(game.invokePower('spawn_sheep', sheepSpot.x, sheepSpot.y, null), true);
  t.same(rec.events, [
    {
      kind: 'power_invoked',
      fields: { power_id: 'spawn_sheep', x: sheepSpot.x, y: sheepSpot.y, radius: 0, active: null },
      kingdomIds: [wildKingdom('sheep')!],
    },
  ]);
  rec.clear();
  const water = findTile(snap(), (tile) => WATER.has(tile));
  t.equal(game.invokePower('spawn_human', water.x, water.y, null), false);
  t.same(rec.events, [], 'a refused pulse reports nothing');
  checked(t, rec);
  t.end();
});

t.test('tiles_painted: the brush, its counts, and the kingdoms whose land or people it covered (before painting)', (t) => {
  const rec = recorder();
  startGame(rec);
  const city = someCity();
  const outcome = game.paintTile(city.x, city.y, 'shallow_water', null, 2);
  t.same(rec.events, [
    {
      kind: 'tiles_painted',
      fields: { x: city.x, y: city.y, radius: 2, tile_id: 'shallow_water', top_id: null, painted: outcome.painted, skipped: outcome.skipped },
      kingdomIds: rec.events[0]!.kingdomIds,
    },
  ]);
  t.ok(rec.events[0]!.kingdomIds.includes(city.kingdomId), 'the flooded city is named');
  // One tile of city land with nobody on it: only the land names the kingdom, and water takes it.
  const s = snap();
  const occupied = new Set<number>();
  for (let i = 0; i < s.hwm; i++) if (s.actors.alive[i] === 1) occupied.add(Math.floor(s.actors.y[i]!) * s.width + Math.floor(s.actors.x[i]!));
  const plot = findTile(s, (tile, _x, _y, i) => s.tiles.owner[i] === city.id && !WATER.has(tile) && !occupied.has(i));
  rec.clear();
  game.paintTile(plot.x, plot.y, 'shallow_water', null, 0);
  t.same(rec.events[0]?.kingdomIds, [city.kingdomId], 'named although the water took the land from the city');
  t.equal(snap().tiles.owner[plot.y * s.width + plot.x], 0, "the land is no longer the city's");
  rec.clear();
  const empty = emptySpot(1);
  game.paintTile(empty.x, empty.y, null, 'flowers', 1);
  t.same(
    rec.events.map((e) => [e.kind, e.fields.top_id, e.kingdomIds]),
    [['tiles_painted', 'flowers', []]],
  );
  checked(t, rec);
  t.end();
});

t.test('actor_died carries its cause: age, hunger, plague, fire, lava, drowning, combat, zombified', (t) => {
  const rec = recorder();
  /** One creature set up to die of one thing; returns its death event (or undefined). */
  const deathOf = (setup: (w: World, actor: number) => void, asset = id('sheep')) => {
    const w = arena(rec);
    const actor = placeActor(w, asset, 64.5, 64.5, true);
    const name = nameOf(w, actor);
    const kingdom = w.a.kingdom[actor]!;
    setup(w, actor);
    rec.clear();
    for (let n = 0; n < 400 && !rec.of('actor_died').some((e) => e.fields.name === name); n++) tick(w);
    const death = rec.of('actor_died').find((e) => e.fields.name === name);
    t.same(death?.kingdomIds, [kingdom], `${death?.fields.cause}: named by its kingdom`);
    return death;
  };
  const age = deathOf((w, s) => void (w.a.maxAge[s] = w.a.age[s]! + 4));
  t.match(age, { fields: { cause: 'age', asset_id: 'sheep', power_id: null, x: 64, y: 64 } });
  t.not(age?.fields.kingdom_id, null, 'a sheep belongs to the wild sheep');
  t.match(
    deathOf((w, s) => {
      w.a.hunger[s] = 255;
      w.a.hp[s] = 1;
    }),
    { fields: { cause: 'hunger' } },
  );
  t.match(
    deathOf((w, s) => {
      w.a.plague[s] = 600;
      w.a.hp[s] = 2;
    }),
    { fields: { cause: 'plague' } },
  );
  t.match(
    deathOf((w, s) => {
      w.a.hp[s] = 10;
      ignite(w, 64 * w.width + 64, 200);
    }),
    { fields: { cause: 'fire' } },
  );
  t.match(
    deathOf((w, s) => {
      w.a.hp[s] = 10;
      setTileType(w, 64 * w.width + 64, T.lava);
    }),
    { fields: { cause: 'lava' } },
  );
  t.match(
    deathOf((w, s) => {
      w.a.hp[s] = 10;
      forDisc(w, 64, 64, 3, (i) => setTileType(w, i, T.shallow));
    }),
    { fields: { cause: 'drowning' } },
  );
  t.match(
    deathOf((w, s) => {
      w.a.hp[s] = 1;
      for (let n = 0; n < 3; n++) w.a.hunger[placeActor(w, id('wolf'), 64.8, 64.5, true)] = 200;
    }),
    { fields: { cause: 'combat' } },
  );

  // A nomad's death names NO_KINGDOM: fog hides it from every faction player.
  const nomad = deathOf((w, s) => void (w.a.maxAge[s] = w.a.age[s]! + 4), A.human);
  t.match(nomad, { fields: { cause: 'age', kingdom_id: null, asset_id: 'human' }, kingdomIds: [NO_KINGDOM] });

  // Zombies: a bitten creature dies (zombified) and rises as a zombie of the wild undead.
  const w = arena(rec);
  for (let n = 0; n < 16; n++) w.a.hp[placeActor(w, id('chicken'), 62.5 + (n % 4), 62.5 + Math.floor(n / 4), true)] = 1;
  for (let n = 0; n < 6; n++) placeActor(w, A.zombie, 63.5, 63.5, true);
  rec.clear();
  for (let n = 0; n < 2000 && !rec.of('actor_died').some((e) => e.fields.cause === 'zombified'); n++) tick(w);
  const bitten = rec.of('actor_died').find((e) => e.fields.cause === 'zombified');
  t.ok(bitten, 'someone was zombified');
  const risen = rec.events[rec.events.indexOf(bitten!) + 1];
  t.match(risen, { kind: 'actor_born', fields: { name: bitten?.fields.name, asset_id: 'zombie', x: bitten?.fields.x, y: bitten?.fields.y } });
  t.same(risen?.kingdomIds, [w.kingdoms.find((k) => k.wild && k.race === 'undead')!.id]);
  t.not(risen?.kingdomIds[0], bitten?.kingdomIds[0], 'it changed kingdom');
  for (const e of rec.events) if (e.kind === 'actor_born' || e.kind === 'actor_died') t.same(e.kingdomIds, actorKingdoms(e));
  checked(t, rec);
  t.end();
});

t.test("actor_born: a creature born in the world, under its parent's kingdom", (t) => {
  const rec = recorder();
  const w = arena(rec);
  for (let n = 0; n < 4; n++) placeActor(w, id('rabbit'), 50.5 + n * 6, 64.5, true);
  rec.clear();
  for (let n = 0; n < 1500 && rec.of('actor_born').length === 0; n++) tick(w);
  const [born] = rec.of('actor_born');
  t.match(born, { fields: { asset_id: 'rabbit' } });
  t.same(born?.kingdomIds, [w.kingdoms.find((k) => k.wild && k.race === 'rabbit')!.id]);
  let found = false;
  for (let s = 0; s < w.actorEnd; s++) if (w.a.alive[s] === 1 && nameOf(w, s) === born?.fields.name) found = true;
  t.ok(found, 'the newborn lives, under that name');
  checked(t, rec);
  t.end();
});

t.test("kingdom_founded then its capital's city_founded, naming the new kingdom", (t) => {
  const rec = recorder();
  startGame(rec);
  const land = openLand(snap(), 4);
  const orcs = game.spawn('orc', land.x, land.y, 6, true);
  rec.clear();
  runTicks(game, 400);
  const [founded] = rec.of('kingdom_founded');
  t.ok(founded, 'the nomads founded a kingdom');
  const kingdom = game.listKingdoms(false).find((k) => k.id === founded?.fields.kingdom_id)!;
  t.same(founded?.fields, { kingdom_id: kingdom.id, name: kingdom.name, race: 'orc', founder_name: founded?.fields.founder_name });
  t.ok(orcs.names.includes(founded?.fields.founder_name), 'founded by one of the spawned orcs');
  t.same(founded?.kingdomIds, [kingdom.id]);
  const capital = rec.of('city_founded').find((e) => e.fields.kingdom_id === kingdom.id);
  t.ok(capital && rec.events.indexOf(capital) > rec.events.indexOf(founded!), 'its capital follows');
  const city = game.listCities(kingdom.id).find((c) => c.id === capital?.fields.city_id);
  t.same(capital?.fields, { city_id: city?.id, name: city?.name, kingdom_id: kingdom.id, x: capital?.fields.x, y: capital?.fields.y });
  t.same(capital?.kingdomIds, [kingdom.id]);
  checked(t, rec);
  t.end();
});

t.test('a kingdom that loses everyone: city_destroyed, kingdom_fell, then peace with its enemies', (t) => {
  const rec = recorder();
  const w = buildWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  w.events = new WorldEvents(rec.host);
  const [doomed, enemy] = w.kingdoms.filter((k) => !k.wild);
  declareWar(doomed!, enemy!);
  const cities = w.cities.filter((c) => c.alive && c.kingdomId === doomed!.id);
  for (let s = 0; s < w.actorEnd; s++) if (w.a.kingdom[s] === doomed!.id) w.a.alive[s] = 0; // gone without a trace
  rec.clear();
  run(w, 17); // one census
  t.same(
    rec.of('city_destroyed').map((e) => [e.fields.city_id, e.kingdomIds]),
    cities.map((c) => [c.id, [doomed!.id]]),
  );
  t.same(rec.of('city_destroyed')[0]?.fields, { city_id: cities[0]!.id, name: cities[0]!.name, kingdom_id: doomed!.id, x: cities[0]!.x, y: cities[0]!.y });
  t.same(rec.of('kingdom_fell'), [
    { kind: 'kingdom_fell', fields: { kingdom_id: doomed!.id, name: doomed!.name, race: doomed!.race }, kingdomIds: [doomed!.id] },
  ]);
  const [peace] = rec.of('peace_made');
  t.same(peace, {
    kind: 'peace_made',
    fields: {
      sides: [
        { id: doomed!.id, name: doomed!.name },
        { id: enemy!.id, name: enemy!.name },
      ],
      reason: 'kingdom_fell',
    },
    kingdomIds: [doomed!.id, enemy!.id].sort((p, q) => p - q),
  });
  const order = ['city_destroyed', 'kingdom_fell', 'peace_made'].map((kind) => rec.events.findIndex((e) => e.kind === kind));
  t.same(
    order,
    [...order].sort((p, q) => p - q),
    'cities, then the kingdom, then its peace',
  );
  checked(t, rec);
  t.end();
});

t.test('war_declared and peace_made name both sides; world_peace ends every war', (t) => {
  const rec = recorder();
  // A 2x2 world whose kingdoms meet early (measured: war near tick 420, a treaty near 550).
  const w = buildWorld({ zonesX: 2, zonesY: 2, seed: 5 });
  w.events = new WorldEvents(rec.host);
  for (let n = 0; n < 4000 && rec.of('war_declared').length === 0; n++) tick(w);
  const [war] = rec.of('war_declared');
  t.ok(war, 'a war broke out');
  const [a, b] = war!.fields.sides as Array<{ id: number; name: string }>;
  t.same(
    [a, b],
    [a!.id, b!.id].map((kid) => ({ id: kid, name: w.kingdoms[kid - 1]!.name })),
  );
  t.ok(w.kingdoms[a!.id - 1]!.wars.includes(b!.id), 'they are at war');
  t.same(
    war!.kingdomIds,
    [a!.id, b!.id].sort((p, q) => p - q),
  );

  for (let n = 0; n < 4000 && rec.of('peace_made').length === 0; n++) tick(w);
  const [treaty] = rec.of('peace_made');
  t.match(treaty, { fields: { reason: 'treaty' } });
  t.same(treaty?.kingdomIds.length, 2);

  // world_peace: every war ends at once, each reported.
  rec.clear();
  const civs = w.kingdoms.filter((k) => k.alive && !k.wild);
  t.ok(civs.length >= 2);
  for (let n = 1; n < civs.length; n++) declareWar(civs[0]!, civs[n]!);
  const wars = new Set<string>();
  for (const k of w.kingdoms) for (const e of k.wars) wars.add(String([k.id, e].sort((p, q) => p - q)));
  t.equal(applyPower(w, powerAsset('world_peace')!, 0, 0, null), true);
  t.ok(
    w.kingdoms.every((k) => k.wars.length === 0),
    'no war left',
  );
  const peaces = rec.of('peace_made');
  t.ok(
    peaces.every((e) => e.fields.reason === 'world_peace'),
    'reason world_peace',
  );
  t.same(peaces.map((e) => String(e.kingdomIds)).sort(), [...wars].sort(), 'one peace per war, naming both sides');
  checked(t, rec);
  t.end();
});

t.test('city_conquered: a city taken in war names the loser and the winner', (t) => {
  const rec = recorder();
  const w = buildWorld({ zonesX: 4, zonesY: 4, seed: 1234 });
  w.events = new WorldEvents(rec.host);
  const [winner, loser] = w.kingdoms.filter((k) => !k.wild);
  const city = w.cities.find((c) => c.alive && c.kingdomId === loser!.id)!;
  // One frail defender left in the city, at its centre; the attackers stand beside it.
  let defender = -1;
  for (let s = 0; s < w.actorEnd; s++) {
    if (w.a.alive[s] !== 1 || w.a.city[s] !== city.id) continue;
    if (defender < 0) defender = s;
    else w.a.alive[s] = 0;
  }
  census(w);
  w.a.x[defender] = city.x + 0.5;
  w.a.y[defender] = city.y + 0.5;
  w.a.hp[defender] = 1;
  declareWar(winner!, loser!);
  const race = ACTOR_INDEX.get(winner!.race)!;
  for (let n = 0; n < 4; n++) createActor(w, race, city.x + 1.2, city.y + 0.5, true, winner!.id, 0);
  rec.clear();
  for (let n = 0; n < 200 && rec.of('city_conquered').length === 0; n++) tick(w);
  t.same(rec.of('city_conquered'), [
    {
      kind: 'city_conquered',
      fields: { city_id: city.id, name: city.name, from_kingdom_id: loser!.id, to_kingdom_id: winner!.id, x: city.x, y: city.y },
      kingdomIds: [winner!.id, loser!.id].sort((p, q) => p - q),
    },
  ]);
  t.equal(city.kingdomId, winner!.id, 'the city changed hands');
  checked(t, rec);
  t.end();
});

t.test(`the ${FRAME_ACTOR_EVENTS} rule: a frame with 300 births gives ${FRAME_ACTOR_EVENTS} births and a summary per kingdom`, (t) => {
  const rec = recorder();
  const w = arena(rec);
  // Parents of two kingdoms, taking turns: people of a civilised kingdom (revived) and sheep (the wild sheep).
  const people = w.kingdoms.find((k) => !k.wild)!;
  people.alive = true;
  const human = people.id;
  const parents: number[] = [];
  for (let n = 0; n < 150; n++) {
    parents.push(createActor(w, ACTOR_INDEX.get(people.race)!, 60.5, 60.5, true, human, 0));
    parents.push(placeActor(w, id('sheep'), 66.5, 66.5, true));
  }
  const sheep = w.a.kingdom[parents[1]!]!;
  rec.clear();
  w.births.set(parents);
  w.birthCount = parents.length;
  flushBirths(w);
  const born = rec.of('actor_born');
  t.equal(born.length, FRAME_ACTOR_EVENTS, 'the first 256 one by one');
  t.same(rec.of('population_changed'), [], 'summaries wait for the end of the frame');
  const oneByOne = (k: number) => born.filter((e) => e.kingdomIds[0] === k).length;

  (w.events as WorldEvents).endFrame(w);
  const summaries = rec.of('population_changed');
  const aliveIn = (k: number) => {
    let n = 0;
    for (let s = 0; s < w.actorEnd; s++) if (w.a.alive[s] === 1 && w.a.kingdom[s] === k) n++;
    return n;
  };
  t.same(
    summaries.map((e): Record<string, any> => ({ kingdomIds: e.kingdomIds, ...e.fields })).sort((p, q) => p.kingdom_id - q.kingdom_id),
    [sheep, human].sort((p, q) => p - q).map((k) => ({ kingdomIds: [k], kingdom_id: k, born: 150 - oneByOne(k), died: 0, alive: aliveIn(k) })),
    'per kingdom: the births not reported, and its own population only',
  );
  t.equal(aliveIn(human), 300);

  // The next frame starts with a fresh budget.
  rec.clear();
  w.births[0] = parents[0]!;
  w.birthCount = 1;
  flushBirths(w);
  (w.events as WorldEvents).endFrame(w);
  t.same(
    rec.events.map((e) => e.kind),
    ['actor_born'],
  );
  checked(t, rec);
  t.end();
});

t.test('the rule through the module: an atomic bomb on a crowd, summaries at the next update()', (t) => {
  const rec = recorder();
  startGame(rec);
  const spot = emptySpot(6);
  for (let n = 0; n < 4; n++) game.spawn('sheep', spot.x + (n % 2) * 2, spot.y + (n >> 1) * 2, 100, true);
  game.spawn('orc', spot.x, spot.y, 60, true); // nomads
  const before = game.getWorldState().population_alive;
  rec.clear();
  game.invokePower('atomic_bomb', spot.x, spot.y, null);
  const dead = before - game.getWorldState().population_alive;
  t.ok(dead > FRAME_ACTOR_EVENTS + 100, `${dead} died`);
  t.equal(rec.of('actor_died').length, FRAME_ACTOR_EVENTS);
  t.same(rec.of('population_changed'), []);
  game.update(0); // the next frame begins: the last one's summaries
  const summaries = rec.of('population_changed');
  t.equal(summaries.reduce((sum, e) => sum + e.fields.died, 0) + FRAME_ACTOR_EVENTS, dead, 'every death counted once');
  t.ok(
    summaries.some((e) => e.fields.kingdom_id === null && e.kingdomIds[0] === NO_KINGDOM),
    "the nomads' summary names NO_KINGDOM",
  );
  const units = new Map(game.listKingdoms(true).map((k) => [k.id, k.units_count]));
  for (const e of summaries) {
    t.same(e.kingdomIds, [e.fields.kingdom_id ?? NO_KINGDOM]);
    t.equal(e.fields.born, 0);
    if (e.fields.kingdom_id !== null) t.equal(e.fields.alive, units.get(e.fields.kingdom_id) ?? 0, `alive in kingdom ${e.fields.kingdom_id}`);
  }
  t.equal(new Set(summaries.map((e) => e.fields.kingdom_id)).size, summaries.length, 'one per kingdom');
  rec.clear();
  game.update(0);
  t.same(rec.of('population_changed'), [], 'once');
  checked(t, rec);
  t.end();
});

t.test('a world swap: the old frame is closed against the old world, and the new world reports', (t) => {
  const rec = recorder();
  startGame(rec);
  const spot = emptySpot(6);
  for (let n = 0; n < 4; n++) game.spawn('sheep', spot.x + (n % 2) * 2, spot.y + (n >> 1) * 2, 100, true);
  game.invokePower('atomic_bomb', spot.x, spot.y, null);
  t.equal(rec.of('actor_died').length, FRAME_ACTOR_EVENTS);
  rec.clear();
  game.installWorld(game.generateWorld({ zonesX: 2, zonesY: 2, seed: 9 }));
  t.ok(rec.of('population_changed').length >= 1, 'the summaries of the frame the swap ended');
  rec.clear();
  const land = openLand(snap(), 2);
  game.spawn('sheep', land.x, land.y, 1, true);
  t.same(
    rec.events.map((e) => e.kind),
    ['spawned'],
    'the new world reports through the same host',
  );
  checked(t, rec);
  t.end();
});

t.test('a long run with every kind of action emits only declared kinds with their declared fields', (t) => {
  const rec = recorder();
  startGame(rec, { suppressStartupWindow: false });
  game.dismissWindow();
  const land = openLand(snap(), 4);
  game.spawn('human', land.x, land.y, 10, true);
  game.spawn('zombie', land.x + 3, land.y, 3, true);
  game.invokePower('plague', land.x, land.y, 3);
  game.invokePower('fire', land.x - 3, land.y, 2);
  game.paintTile(land.x, land.y + 3, 'lava', null, 1);
  runTicks(game, 600);
  const kinds = new Set(rec.events.map((e) => e.kind));
  for (const kind of ['actor_born', 'actor_died', 'spawned', 'power_invoked', 'tiles_painted', 'window_dismissed', 'window_opened'])
    t.ok(kinds.has(kind), kind);
  const actors = rec.events.filter((e) => e.kind === 'actor_born' || e.kind === 'actor_died');
  t.same(
    actors.filter((e) => String(e.kingdomIds) !== String(actorKingdoms(e))),
    [],
    `each of ${actors.length} actor events names its actor's kingdom`,
  );
  checked(t, rec);
  t.end();
});
