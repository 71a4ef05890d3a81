// The world's rules: the sandbox's are the default and unchanged; grow and duel price each action
// from a kingdom's favor, refilled by its cities' land; duel starts two kingdoms close and at war.
import t from 'tap';
import { ACTOR_INDEX } from '../../src/game/assets.ts';
import { buildWorld } from '../../src/game/generate.ts';
import { census, citySystem, destroyCity } from '../../src/game/kingdoms.ts';
import { observeWorld } from '../../src/game/observe.ts';
import { cityIncome, cityLand, commandPrice, kingdomIncome, paintPrice, powerPrice, RULES, rulesOf, spawnPrice } from '../../src/game/rules.ts';
import { hashState } from '../../src/game/state-hash.ts';
import { ANCHOR_STATS } from '../../src/shared/anchor-stats.ts';
import type { World } from '../../src/game/world.ts';

const SMALL = { zonesX: 2, zonesY: 2, seed: 1234 };
const civ = (w: World) => w.kingdoms.filter((k) => !k.wild);
const prices = RULES.find((r) => r.id === 'grow')!.prices!;

t.test('a world made without rules is the sandbox world, hash and all; grow and duel are other worlds', (t) => {
  const plain = buildWorld(SMALL);
  const sandbox = buildWorld({ ...SMALL, rules: 'sandbox' });
  t.equal(rulesOf(plain).id, 'sandbox');
  t.equal(hashState(sandbox, null), hashState(plain, null));
  t.ok(
    civ(plain).every((k) => k.favor === 0),
    'no budget under the sandbox',
  );
  t.not(hashState(buildWorld({ ...SMALL, rules: 'grow' }), null), hashState(plain, null));
  t.throws(() => buildWorld({ ...SMALL, rules: 'chess' }), /rules must be one of sandbox, grow, duel, got "chess"/);
  t.end();
});

t.test('the same seed and rules make the same world', (t) => {
  for (const rules of ['grow', 'duel']) t.equal(hashState(buildWorld({ ...SMALL, rules }), null), hashState(buildWorld({ ...SMALL, rules }), null), rules);
  t.end();
});

t.test('prices: nothing costs anything under the sandbox; under grow a child, an adult, a power, a wider brush', (t) => {
  const sandbox = buildWorld(SMALL);
  t.equal(commandPrice(sandbox, 'spawn', { entity_id: 'human', adult: true }), 0);
  const grow = buildWorld({ ...SMALL, rules: 'grow' });
  const human = ACTOR_INDEX.get('human')!;
  t.equal(spawnPrice(prices, human, false, 1), prices.child);
  t.equal(commandPrice(grow, 'spawn', { entity_id: 'human', count: 3 }), 3 * prices.child);
  t.equal(commandPrice(grow, 'spawn', { entity_id: 'human', adult: true }), prices.adult);
  t.equal(commandPrice(grow, 'spawn', { entity_id: 'wolf' }), prices.creature);
  t.equal(commandPrice(grow, 'invoke_power', { power_id: 'blessing' }), prices.powers.blessing);
  t.equal(commandPrice(grow, 'invoke_power', { power_id: 'lightning', pulses: 2 }), 2 * prices.powers.lightning!);
  t.ok(powerPrice(prices, 'fertilizer', 12) > powerPrice(prices, 'fertilizer', null), 'a wider brush costs more');
  t.equal(commandPrice(grow, 'paint_tile', { radius: 2 }), paintPrice(prices, 2));
  t.equal(commandPrice(grow, 'observe', {}), 0, 'what is not an action is free');
  t.end();
});

t.test('grow: a kingdom starts with favor; its cities refill it by their land every 32 ticks, up to the cap', (t) => {
  const w = buildWorld({ ...SMALL, rules: 'grow' });
  const favor = rulesOf(w).favor!;
  const kingdoms = civ(w);
  t.ok(kingdoms.length >= 2);
  t.ok(kingdoms.every((k) => k.favor === favor.start));
  const k = kingdoms[0]!;
  k.favor = 0;
  const expected = w.cities.filter((c) => c.alive && c.kingdomId === k.id).reduce((sum, c) => sum + cityIncome(favor, cityLand(w, c).tiles), 0);
  for (let n = 0; n < 32; n++) {
    w.tick++;
    citySystem(w);
  }
  t.equal(k.favor, expected, 'each city adds 1 + 1 per 100 tiles of its land');
  k.favor = favor.cap - 1;
  for (let n = 0; n < 32; n++) {
    w.tick++;
    citySystem(w);
  }
  t.equal(k.favor, favor.cap, 'what passes the cap is lost');
  t.end();
});

t.test('grow: a city is fed by its fertile land', (t) => {
  const w = buildWorld({ ...SMALL, rules: 'grow' });
  const city = w.cities.find((c) => c.alive)!;
  city.food = 0;
  city.buildings = 20; // room in the store
  const fertile = cityLand(w, city).fertile;
  while (((w.tick + 1 + city.id) & 31) !== 0) w.tick++;
  w.tick++;
  citySystem(w);
  t.equal(city.food, 1 + Math.floor(fertile / rulesOf(w).fertilePerFood!));
  t.end();
});

t.test('duel: two kingdoms of one race, capitals 28 to 36 tiles apart, at war from the start', (t) => {
  for (const seed of [1, 2, 3]) {
    const w = buildWorld({ zonesX: 2, zonesY: 2, seed, rules: 'duel' });
    const [a, b] = civ(w);
    t.equal(civ(w).length, 2, `seed ${seed}: two kingdoms`);
    t.equal(a!.race, b!.race);
    const ca = w.cities[a!.capitalId - 1]!;
    const cb = w.cities[b!.capitalId - 1]!;
    const apart = Math.hypot(ca.x - cb.x, ca.y - cb.y);
    t.ok(apart >= 28 && apart <= 36, `seed ${seed}: ${apart.toFixed(1)} tiles apart`);
    t.ok(a!.wars.includes(b!.id) && b!.wars.includes(a!.id), `seed ${seed}: at war`);
  }
  t.end();
});

t.test('duel: a kingdom left without a city falls at the next census, its people left become nomads', (t) => {
  const w = buildWorld({ ...SMALL, rules: 'duel' });
  const [loser, winner] = civ(w);
  for (const city of w.cities) if (city.alive && city.kingdomId === loser!.id) destroyCity(w, city);
  census(w);
  t.equal(loser!.alive, false);
  t.ok(winner!.alive);
  t.equal(loser!.units, 0);
  let left = 0;
  for (let i = 0; i < w.actorEnd; i++) if (w.a.alive[i] === 1 && w.a.kingdom[i] === loser!.id) left++;
  t.equal(left, 0);
  // Under the sandbox's rules a kingdom with people left stands.
  const s = buildWorld(SMALL);
  const k = civ(s)[0]!;
  for (const city of s.cities) if (city.alive && city.kingdomId === k.id) destroyCity(s, city);
  census(s);
  t.ok(k.units > 0 && k.alive, 'the sandbox waits for its last unit');
  t.end();
});

t.test("observe: each anchor city's figures, the budget under grow, the rival only for a viewer who sees all", (t) => {
  const w = buildWorld({ ...SMALL, rules: 'duel' });
  const [own, rival] = civ(w);
  const view = { cells: 8, kingdomId: own!.id, anchors: 2 };
  const fogged = observeWorld(w, { ...view, others: false, rivalAnchors: 2 });
  t.same(fogged.economy, { favor: 20, cap: 60, income: kingdomIncome(w, own!) });
  const city = w.cities[own!.capitalId - 1]!;
  const row = Array.from(fogged.anchorStats!.subarray(0, ANCHOR_STATS.length));
  t.equal(row[ANCHOR_STATS.indexOf('units')], city.units, 'its people');
  t.equal(row[ANCHOR_STATS.indexOf('fertile')], cityLand(w, city).fertile, 'its land');
  t.same(Array.from(fogged.anchorStats!.subarray(ANCHOR_STATS.length)), new Array(ANCHOR_STATS.length).fill(0), 'zeros past the last city');
  t.equal(fogged.rival, undefined, 'no rival under the fog');
  const seeing = observeWorld(w, { ...view, others: true, rivalAnchors: 2 });
  t.equal(seeing.rival!.kingdomId, rival!.id);
  t.equal(seeing.rival!.counts.cities, 1);
  t.equal(observeWorld(buildWorld(SMALL), { ...view, others: false }).economy, undefined, 'no budget under the sandbox');
  t.end();
});
