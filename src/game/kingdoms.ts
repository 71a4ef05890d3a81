// Kingdoms and cities: founding, membership, territory, growth, census, wars and conquest.
import { ACTORS, ACTOR_KIND, ACTOR_KIND_CIV, TILE_BUILDABLE, TILE_WATER, TOP } from './assets.ts';
import { createActor, isAdult } from './actors.ts';
import { cityName, kingdomName } from './names.ts';
import { addFavor, cityIncome, cityLand, rulesOf, startingFavor } from './rules.ts';
import { chancePerMille, nextInt, nextU32 } from './rng.ts';
import { cityOf, forDisc, inBounds, isBurning, kingdomColor, kingdomOf, MAX_CITY_ID, setOwner, setTop, type City, type Kingdom, type World } from './world.ts';

export const MAX_CIV_KINGDOMS_ALIVE = 40;
export const MAX_CITIES_ALIVE = 240;
/** No two city centres closer than this (tiles). */
export const CITY_SPACING = 18;
export const CENSUS_EVERY = 16;
export const CITY_EVERY = 32;
export const KINGDOM_EVERY = 64;
const MAX_BUILDINGS = 90;
const MAX_CITY_RADIUS = 28;

export function housingCapacity(city: City): number {
  return 6 + city.buildings * 3;
}

function newKingdom(w: World, race: string, wild: boolean): Kingdom {
  const id = w.kingdoms.length + 1;
  const kingdom: Kingdom = {
    id,
    name: wild ? `Wild ${race}` : kingdomName(w.seed, id, race),
    race,
    wild,
    alive: true,
    color: kingdomColor(id),
    kingUid: 0,
    kingIndex: -1,
    capitalId: 0,
    createdTick: w.tick,
    units: 0,
    cities: 0,
    wars: [],
    warTarget: 0,
    favor: wild ? 0 : startingFavor(w),
  };
  w.kingdoms.push(kingdom);
  if (!wild) w.civAlive++;
  return kingdom;
}

/** The one wild kingdom of a race (animals and monsters), created the first time it is needed. */
export function wildKingdomFor(w: World, asset: number): number {
  const race = ACTORS[asset]?.race ?? 'unknown';
  for (const k of w.kingdoms) if (k.wild && k.race === race) return k.id;
  return newKingdom(w, race, true).id;
}

/** Live civilised kingdoms, counted afresh (civAlive keeps the count as the world runs). */
export function liveCivKingdoms(w: World): number {
  let n = 0;
  for (const k of w.kingdoms) if (k.alive && !k.wild) n++;
  return n;
}

/** Live cities, counted afresh (citiesAlive keeps the count as the world runs). */
export function liveCities(w: World): number {
  let n = 0;
  for (const c of w.cities) if (c.alive) n++;
  return n;
}

/** Recounts the live kingdoms and cities (after a world is rebuilt by hand). */
export function recountAlive(w: World): void {
  w.civAlive = liveCivKingdoms(w);
  w.citiesAlive = liveCities(w);
}

/** A city may be founded with its centre on this tile. */
export function canFoundAt(w: World, x: number, y: number): boolean {
  if (!inBounds(w, x, y)) return false;
  const i = y * w.width + x;
  if (TILE_BUILDABLE[w.tileType[i]!] !== 1 || w.owner[i] !== 0) return false;
  if (w.cities.length >= MAX_CITY_ID || w.citiesAlive >= MAX_CITIES_ALIVE) return false;
  const spacing2 = CITY_SPACING * CITY_SPACING;
  for (const c of w.cities) {
    if (!c.alive) continue;
    const dx = c.x - x;
    const dy = c.y - y;
    if (dx * dx + dy * dy < spacing2) return false;
  }
  return true;
}

/** A new city of `kingdomId` centred on (x, y); the caller checked canFoundAt. */
export function foundCity(w: World, kingdomId: number, x: number, y: number): City {
  const kingdom = kingdomOf(w, kingdomId)!;
  const id = w.cities.length + 1;
  const city: City = {
    id,
    name: cityName(w.seed, id, kingdom.race),
    kingdomId,
    x,
    y,
    alive: true,
    leaderUid: 0,
    leaderIndex: -1,
    buildings: 0,
    units: 0,
    radius: 4,
    claimed: 0,
    food: 10,
    foundedTick: w.tick,
  };
  w.cities.push(city);
  w.citiesAlive++;
  kingdom.cities++;
  if (kingdom.capitalId === 0) kingdom.capitalId = id;
  claimTerritory(w, city);
  const centre = y * w.width + x;
  if (TILE_BUILDABLE[w.tileType[centre]!] === 1) {
    setTop(w, centre, TOP.house);
  }
  w.events?.cityFounded(city);
  return city;
}

/** Claims the free land of the city's disc up to its radius. */
export function claimTerritory(w: World, city: City): void {
  if (city.claimed >= city.radius) return;
  forDisc(w, city.x, city.y, city.radius, (i) => {
    if (w.owner[i] === 0 && TILE_WATER[w.tileType[i]!] === 0) setOwner(w, i, city.id);
  });
  city.claimed = city.radius;
}

/** Moves an actor into a city (and its kingdom), keeping the counts right. */
export function joinCity(w: World, actor: number, cityId: number): void {
  const a = w.a;
  const city = cityOf(w, cityId);
  const kingdomId = city ? city.kingdomId : a.kingdom[actor]!;
  const oldK = kingdomOf(w, a.kingdom[actor]!);
  const oldC = cityOf(w, a.city[actor]!);
  if (oldC && oldC.units > 0) oldC.units--;
  if (oldK && oldK.id !== kingdomId && oldK.units > 0) oldK.units--;
  const newK = kingdomOf(w, kingdomId);
  if (newK && newK !== oldK) newK.units++;
  if (city) city.units++;
  a.kingdom[actor] = kingdomId;
  a.city[actor] = cityId;
}

/** An adult civilised actor founds a kingdom of its race with a capital where it stands. */
export function foundKingdom(w: World, actor: number): Kingdom | null {
  if (w.civAlive >= MAX_CIV_KINGDOMS_ALIVE) return null;
  const x = Math.floor(w.a.x[actor]!);
  const y = Math.floor(w.a.y[actor]!);
  if (!canFoundAt(w, x, y)) return null;
  const race = ACTORS[w.a.asset[actor]!]?.race ?? 'human';
  const kingdom = newKingdom(w, race, false);
  w.events?.kingdomFounded(w, kingdom, actor); // before its capital's city_founded
  const city = foundCity(w, kingdom.id, x, y);
  joinCity(w, actor, city.id);
  kingdom.kingUid = w.a.uid[actor]!;
  kingdom.kingIndex = actor;
  city.leaderUid = w.a.uid[actor]!;
  city.leaderIndex = actor;
  return kingdom;
}

/** A homeless member of a kingdom with no city left founds one for it. */
export function foundCityFor(w: World, actor: number): City | null {
  const kingdom = kingdomOf(w, w.a.kingdom[actor]!);
  if (!kingdom?.alive) return null;
  const x = Math.floor(w.a.x[actor]!);
  const y = Math.floor(w.a.y[actor]!);
  if (!canFoundAt(w, x, y)) return null;
  const city = foundCity(w, kingdom.id, x, y);
  joinCity(w, actor, city.id);
  city.leaderUid = w.a.uid[actor]!;
  city.leaderIndex = actor;
  return city;
}

/**
 * Creates an actor and gives it a home: a civilised actor on the land of a city of its race joins
 * it, elsewhere it is a nomad (it founds a kingdom later); animals and monsters join their race's
 * wild kingdom.
 */
export function placeActor(w: World, asset: number, x: number, y: number, adult: boolean): number {
  const tx = Math.floor(x);
  const ty = Math.floor(y);
  if (ACTOR_KIND[asset] === ACTOR_KIND_CIV) {
    const owner = w.owner[ty * w.width + tx]!;
    const city = cityOf(w, owner);
    const kingdom = city ? kingdomOf(w, city.kingdomId) : undefined;
    if (city?.alive && kingdom?.alive && kingdom.race === ACTORS[asset]!.race) {
      return createActor(w, asset, x, y, adult, kingdom.id, city.id);
    }
    return createActor(w, asset, x, y, adult, 0, 0);
  }
  return createActor(w, asset, x, y, adult, wildKingdomFor(w, asset), 0);
}

export function atWar(w: World, a: number, b: number): boolean {
  const k = a > 0 ? w.kingdoms[a - 1] : undefined;
  return k !== undefined && k.wars.length > 0 && k.wars.includes(b);
}

/** `a` declares war on `b`; false when they already are at war (or are one kingdom). */
export function declareWar(a: Kingdom, b: Kingdom): boolean {
  if (a.id === b.id || a.wars.includes(b.id)) return false;
  a.wars.push(b.id);
  b.wars.push(a.id);
  return true;
}

/** Ends the war between `a` and `b`; returns whether there was one. */
export function makePeace(a: Kingdom, b: Kingdom): boolean {
  const wasAtWar = a.wars.includes(b.id);
  a.wars = a.wars.filter((id) => id !== b.id);
  b.wars = b.wars.filter((id) => id !== a.id);
  if (a.wars.length === 0) a.warTarget = 0;
  if (b.wars.length === 0) b.warTarget = 0;
  return wasAtWar;
}

/** Ends every war of the world (the world_peace law), reporting each. */
export function endAllWars(w: World): void {
  for (const k of w.kingdoms) {
    for (const enemyId of [...k.wars]) {
      const enemy = kingdomOf(w, enemyId);
      if (enemy && makePeace(k, enemy)) w.events?.peaceMade(k, enemy, 'world_peace');
    }
  }
}

/** A city with no one left: its houses become ruins and its land is free again. */
export function destroyCity(w: World, city: City): void {
  if (!city.alive) return;
  forDisc(w, city.x, city.y, Math.max(city.claimed, city.radius) + 1, (i) => {
    if (w.owner[i] !== city.id) return;
    if (w.topType[i] === TOP.house) setTop(w, i, TOP.ruins);
    setOwner(w, i, 0);
  });
  city.alive = false;
  w.citiesAlive--;
  w.events?.cityDestroyed(city);
  city.units = 0;
  city.leaderUid = 0;
  city.leaderIndex = -1;
  const a = w.a;
  for (let i = 0; i < w.actorEnd; i++) if (a.alive[i] === 1 && a.city[i] === city.id) a.city[i] = 0;
  const kingdom = kingdomOf(w, city.kingdomId);
  if (kingdom) {
    if (kingdom.cities > 0) kingdom.cities--;
    if (kingdom.capitalId === city.id) kingdom.capitalId = 0;
  }
}

/** The city and the people still in it change kingdom. */
export function conquerCity(w: World, city: City, winnerId: number): void {
  const loser = kingdomOf(w, city.kingdomId);
  const winner = kingdomOf(w, winnerId);
  if (!winner?.alive || winner.wild || city.kingdomId === winnerId) return;
  const a = w.a;
  let moved = 0;
  for (let i = 0; i < w.actorEnd; i++) {
    if (a.alive[i] === 1 && a.city[i] === city.id) {
      a.kingdom[i] = winnerId;
      moved++;
    }
  }
  if (loser) {
    loser.units = Math.max(0, loser.units - moved);
    if (loser.cities > 0) loser.cities--;
    if (loser.capitalId === city.id) loser.capitalId = 0;
  }
  winner.units += moved;
  winner.cities++;
  const loserId = city.kingdomId;
  city.kingdomId = winnerId;
  city.leaderUid = 0;
  city.leaderIndex = -1;
  w.events?.cityConquered(city, loserId);
}

/** Record by id without reading index -1 (a negative index leaves V8's fast path). */
function cityOrKingdom<T>(list: T[], id: number): T | undefined {
  return id > 0 ? list[id - 1] : undefined;
}

function leaderValid(w: World, actor: number, uid: number): boolean {
  return uid !== 0 && actor >= 0 && actor < w.actorEnd && w.a.alive[actor] === 1 && w.a.uid[actor] === uid;
}

/**
 * Recounts units per kingdom, city and asset, re-elects missing leaders and kings, and retires empty
 * cities and kingdoms. Runs every CENSUS_EVERY ticks, so its results are part of the state.
 */
export function census(w: World): void {
  const a = w.a;
  for (const k of w.kingdoms) {
    k.units = 0;
    if (!k.wild && !(leaderValid(w, k.kingIndex, k.kingUid) && a.kingdom[k.kingIndex] === k.id)) {
      k.kingUid = 0;
      k.kingIndex = -1;
    }
  }
  for (const c of w.cities) {
    c.units = 0;
    if (!(leaderValid(w, c.leaderIndex, c.leaderUid) && a.city[c.leaderIndex] === c.id)) {
      c.leaderUid = 0;
      c.leaderIndex = -1;
    }
  }
  w.assetPop.fill(0);
  for (let i = 0; i < w.actorEnd; i++) {
    if (a.alive[i] !== 1) continue;
    w.assetPop[a.asset[i]!]!++;
    const k = cityOrKingdom(w.kingdoms, a.kingdom[i]!);
    if (k) k.units++;
    const c = cityOrKingdom(w.cities, a.city[i]!);
    if (c) {
      c.units++;
      if (c.leaderUid === 0 && isAdult(w, i)) {
        c.leaderUid = a.uid[i]!;
        c.leaderIndex = i;
      }
    }
  }
  for (const c of w.cities) if (c.alive && c.units === 0) destroyCity(w, c);
  const fallWithoutCities = rulesOf(w).fallWithoutCities;
  for (const k of w.kingdoms) {
    if (k.wild || !k.alive) continue;
    let cities = 0;
    let firstCity = 0;
    for (const c of w.cities) {
      if (c.alive && c.kingdomId === k.id) {
        cities++;
        if (firstCity === 0) firstCity = c.id;
      }
    }
    k.cities = cities;
    const capital = cityOf(w, k.capitalId);
    if (!capital?.alive || capital.kingdomId !== k.id) k.capitalId = firstCity;
    // Under the duel's rules a kingdom without a city has lost, whoever is left of its people.
    if (cities === 0 && (k.units === 0 || fallWithoutCities)) {
      if (k.units > 0) {
        for (let i = 0; i < w.actorEnd; i++) if (a.alive[i] === 1 && a.kingdom[i] === k.id) a.kingdom[i] = 0;
        k.units = 0;
      }
      k.alive = false;
      w.civAlive--;
      k.kingUid = 0;
      k.kingIndex = -1;
      w.events?.kingdomFell(k);
      for (const enemyId of [...k.wars]) {
        const enemy = kingdomOf(w, enemyId);
        if (enemy && makePeace(k, enemy)) w.events?.peaceMade(k, enemy, 'kingdom_fell');
      }
      continue;
    }
    if (k.kingUid === 0) {
      const capitalCity = cityOf(w, k.capitalId);
      if (capitalCity && capitalCity.leaderUid !== 0) {
        k.kingUid = capitalCity.leaderUid;
        k.kingIndex = capitalCity.leaderIndex;
      }
    }
  }
}

/** Each city, every CITY_EVERY ticks (staggered by id): food, houses, territory, colonies. */
export function citySystem(w: World): void {
  const cities = w.cities;
  const count = cities.length;
  const rules = rulesOf(w);
  for (let n = 0; n < count; n++) {
    const city = cities[n]!;
    if (!city.alive || ((w.tick + city.id) & (CITY_EVERY - 1)) !== 0) continue;
    // Under grow and duel the land feeds the city (so greening it pays) and pays its kingdom's favor.
    const land = rules.fertilePerFood === null && rules.favor === null ? null : cityLand(w, city);
    const income = land === null || rules.fertilePerFood === null ? Math.floor(city.units * 0.35) : Math.floor(land.fertile / rules.fertilePerFood);
    city.food = Math.min(city.food + 1 + income, 40 + city.buildings * 10);
    if (land !== null && rules.favor !== null) {
      const kingdom = kingdomOf(w, city.kingdomId);
      if (kingdom?.alive && !kingdom.wild) addFavor(w, kingdom, cityIncome(rules.favor, land.tiles));
    }
    if (city.units + 2 >= housingCapacity(city) && city.food >= 4 && city.buildings < MAX_BUILDINGS) {
      if (buildHouse(w, city)) city.food -= 4;
    }
    const radius = Math.min(MAX_CITY_RADIUS, 4 + Math.floor(Math.sqrt(city.buildings) * 2.5));
    if (radius > city.radius) {
      city.radius = radius;
      claimTerritory(w, city);
    }
    if (city.units >= 30 && city.buildings >= 10 && chancePerMille(w.rng, 60)) foundColony(w, city);
  }
}

/** Generation: a starting city gets some houses and the land that goes with them at once. */
export function seedCity(w: World, city: City, houses: number): void {
  for (let n = 0; n < houses * 3 && city.buildings < houses; n++) {
    city.radius = Math.min(MAX_CITY_RADIUS, 4 + Math.floor(Math.sqrt(city.buildings + 1) * 2.5));
    claimTerritory(w, city);
    buildHouse(w, city);
  }
}

function buildHouse(w: World, city: City): boolean {
  const r = Math.max(1, city.radius - 1);
  for (let attempt = 0; attempt < 8; attempt++) {
    const dx = nextInt(w.rng, 2 * r + 1) - r;
    const dy = nextInt(w.rng, 2 * r + 1) - r;
    if (dx * dx + dy * dy > r * r) continue;
    const x = city.x + dx;
    const y = city.y + dy;
    if (!inBounds(w, x, y)) continue;
    const i = y * w.width + x;
    if (w.owner[i] !== city.id || TILE_BUILDABLE[w.tileType[i]!] !== 1) continue;
    if (w.topType[i] === TOP.house || isBurning(w, i)) continue;
    setTop(w, i, TOP.house);
    return true;
  }
  return false;
}

// Eight directions with literal components, so no platform's Math.cos can change a world.
// Math.SQRT1_2 would change every generated world (and the determinism hashes): keep the literal.
export const DIRS_X = [1, 0.7071068, 0, -0.7071068, -1, -0.7071068, 0, 0.7071068] as const;
export const DIRS_Y = [0, 0.7071068, 1, 0.7071068, 0, -0.7071068, -1, -0.7071068] as const;

function foundColony(w: World, city: City): void {
  const kingdom = kingdomOf(w, city.kingdomId);
  if (!kingdom || kingdom.cities >= 10) return;
  const dir = nextU32(w.rng) & 7;
  const dist = 22 + nextInt(w.rng, 18);
  const x = Math.floor(city.x + DIRS_X[dir]! * dist);
  const y = Math.floor(city.y + DIRS_Y[dir]! * dist);
  if (!canFoundAt(w, x, y)) return;
  const colony = foundCity(w, kingdom.id, x, y);
  // Settlers: up to eight adults leave for the new city (they walk there: it is outside their old land).
  const a = w.a;
  let moved = 0;
  for (let i = 0; i < w.actorEnd && moved < 8; i++) {
    if (a.alive[i] === 1 && a.city[i] === city.id && i !== city.leaderIndex && isAdult(w, i)) {
      joinCity(w, i, colony.id);
      moved++;
    }
  }
}

/** Kingdoms whose lands come close meet; meeting kingdoms may go to war; wars end in time. */
export function kingdomSystem(w: World): void {
  const civs = w.kingdoms.filter((k) => k.alive && !k.wild);
  if (w.laws.world_peace) {
    for (const k of civs) {
      for (const enemyId of [...k.wars]) {
        const enemy = kingdomOf(w, enemyId);
        if (enemy && makePeace(k, enemy)) w.events?.peaceMade(k, enemy, 'world_peace');
      }
    }
    return;
  }
  const live = w.cities.filter((c) => c.alive);
  const war = rulesOf(w).war;
  for (let i = 0; i < civs.length; i++) {
    const ka = civs[i]!;
    for (let j = i + 1; j < civs.length; j++) {
      const kb = civs[j]!;
      if (ka.wars.includes(kb.id)) {
        if (chancePerMille(w.rng, war?.peace ?? 40) && makePeace(ka, kb)) w.events?.peaceMade(ka, kb, 'treaty');
      } else if (kingdomsMeet(live, ka.id, kb.id)) {
        if (chancePerMille(w.rng, war?.declare ?? (ka.race === kb.race ? 50 : 160)) && declareWar(ka, kb)) w.events?.warDeclared(ka, kb);
      }
    }
  }
  for (const k of civs) k.warTarget = k.wars.length > 0 ? nearestEnemyCity(w, k, live) : 0;
}

function kingdomsMeet(live: City[], a: number, b: number): boolean {
  for (const ca of live) {
    if (ca.kingdomId !== a) continue;
    for (const cb of live) {
      if (cb.kingdomId !== b) continue;
      const reach = ca.radius + cb.radius + 16;
      const dx = ca.x - cb.x;
      const dy = ca.y - cb.y;
      if (dx * dx + dy * dy <= reach * reach) return true;
    }
  }
  return false;
}

function nearestEnemyCity(w: World, k: Kingdom, live: City[]): number {
  const home = cityOf(w, k.capitalId) ?? live.find((c) => c.kingdomId === k.id);
  if (!home) return 0;
  let best = 0;
  let bestD2 = Infinity;
  for (const c of live) {
    if (!k.wars.includes(c.kingdomId)) continue;
    const dx = c.x - home.x;
    const dy = c.y - home.y;
    const d2 = dx * dx + dy * dy;
    if (d2 < bestD2) {
      bestD2 = d2;
      best = c.id;
    }
  }
  return best;
}
