// Read-only views of the live world for the read commands. Reads never change state: counts are
// taken afresh here rather than refreshing the census the simulation relies on.
import { ACTORS, TILES, TOPS } from './assets.ts';
import { deadNameAt, nameOf } from './actors.ts';
import { rulesOf } from './rules.ts';
import { DEAD_CAP, kingdomOf, type World } from './world.ts';
import type { ActorQuery, ActorRow, TileReport } from '../shared/game-module.ts';

/** The sandbox fills every field the interface leaves optional (it has tops, heights and kingdoms). */
export type TileView = Required<Omit<TileReport, 'actors'>> & { actors: Array<Required<TileReport['actors'][number]>> };

export function tileView(w: World, x: number, y: number): TileView {
  const i = y * w.width + x;
  const top = w.topType[i]!;
  const actors: TileView['actors'] = [];
  const a = w.a;
  for (let s = 0; s < w.actorEnd; s++) {
    if (a.alive[s] !== 1 || (a.x[s]! | 0) !== x || (a.y[s]! | 0) !== y) continue;
    const k = a.kingdom[s]!;
    actors.push({ name: nameOf(w, s), asset_id: ACTORS[a.asset[s]!]!.id, kingdom_id: k === 0 ? null : k });
  }
  return {
    x,
    y,
    tile_id: TILES[w.tileType[i]!]!.id,
    top_id: top === 0 ? null : TOPS[top - 1]!.id,
    height: w.elevation[i]!,
    actors,
    actor_count: actors.length,
  };
}

/** Live units per kingdom and per city, counted now. */
function headcount(w: World): { kingdoms: Int32Array; cities: Int32Array } {
  const kingdoms = new Int32Array(w.kingdoms.length + 1);
  const cities = new Int32Array(w.cities.length + 1);
  const a = w.a;
  for (let s = 0; s < w.actorEnd; s++) {
    if (a.alive[s] !== 1) continue;
    kingdoms[a.kingdom[s]!]!++;
    cities[a.city[s]!]!++;
  }
  return { kingdoms, cities };
}

function liveName(w: World, actor: number, uid: number): string | null {
  if (uid === 0 || actor < 0 || actor >= w.actorEnd || w.a.alive[actor] !== 1 || w.a.uid[actor] !== uid) return null;
  return nameOf(w, actor);
}

export function kingdomViews(w: World, includeWild: boolean) {
  const count = headcount(w);
  const favor = rulesOf(w).favor !== null;
  const citiesPer = new Int32Array(w.kingdoms.length + 1);
  for (const c of w.cities) if (c.alive) citiesPer[c.kingdomId]!++;
  return w.kingdoms
    .filter((k) => k.alive && (includeWild || !k.wild))
    .map((k) => ({
      id: k.id,
      name: k.name,
      race: k.race,
      king_name: k.wild ? null : liveName(w, k.kingIndex, k.kingUid),
      capital_id: k.capitalId === 0 ? null : k.capitalId,
      cities_count: citiesPer[k.id]!,
      units_count: count.kingdoms[k.id]!,
      wild: k.wild,
      // Under rules that price actions, what each civilised kingdom may still spend.
      ...(favor && !k.wild && { favor: k.favor }),
    }));
}

export function cityViews(w: World, kingdomId?: number) {
  const count = headcount(w);
  return w.cities
    .filter((c) => c.alive && (kingdomId === undefined || c.kingdomId === kingdomId))
    .map((c) => ({
      id: c.id,
      name: c.name,
      kingdom_id: c.kingdomId,
      kingdom_name: kingdomOf(w, c.kingdomId)?.name ?? '',
      leader_name: liveName(w, c.leaderIndex, c.leaderUid),
      building_count: c.buildings,
      unit_count: count.cities[c.id]!,
    }));
}

export type ActorFilter = ActorQuery;

export type ActorRowView = Required<ActorRow>;

/**
 * Live actors oldest first (by uid, so pages stay put while the world runs: newborns join the end),
 * or (alive: false) the most recent deaths, newest first (the world keeps the last DEAD_CAP).
 * `matched` counts every match; `items` is the [offset, offset + limit) page.
 */
export function queryActorViews(w: World, q: ActorFilter): { items: ActorRowView[]; matched: number } {
  const rect = q.in_rect;
  const limit = Math.max(0, Math.floor(q.limit));
  const offset = Math.max(0, Math.floor(q.offset));
  const accepts = (asset: number, kingdom: number, x: number, y: number): boolean => {
    const info = ACTORS[asset];
    if (!info) return false;
    if (q.race !== undefined && info.race !== q.race) return false;
    if (q.kingdom_id !== undefined && kingdom !== q.kingdom_id) return false;
    return !rect || (x >= rect.x && y >= rect.y && x < rect.x + rect.w && y < rect.y + rect.h);
  };
  const row = (name: string, asset: number, kingdom: number, x: number, y: number): ActorRowView => ({
    name,
    asset_id: ACTORS[asset]!.id,
    kingdom_id: kingdom === 0 ? null : kingdom,
    x,
    y,
  });
  const items: ActorRowView[] = [];
  if (!q.alive) {
    const d = w.dead;
    const kept = Math.min(d.total, DEAD_CAP);
    let matched = 0;
    for (let n = 0; n < kept; n++) {
      const at = (d.total - 1 - n) % DEAD_CAP;
      if (!accepts(d.asset[at]!, d.kingdom[at]!, d.x[at]!, d.y[at]!)) continue;
      if (matched >= offset && items.length < limit) items.push(row(deadNameAt(w, at), d.asset[at]!, d.kingdom[at]!, d.x[at]!, d.y[at]!));
      matched++;
    }
    return { items, matched };
  }
  const a = w.a;
  const uids = new Int32Array(w.population);
  let matched = 0;
  for (let s = 0; s < w.actorEnd; s++) {
    if (a.alive[s] === 1 && accepts(a.asset[s]!, a.kingdom[s]!, a.x[s]! | 0, a.y[s]! | 0)) uids[matched++] = a.uid[s]!;
  }
  const page = uids
    .subarray(0, matched)
    .sort()
    .subarray(offset, offset + limit);
  if (page.length === 0) return { items, matched };
  const wanted = new Map<number, number>();
  for (const [n, uid] of page.entries()) wanted.set(uid, n);
  const rows = new Array<ActorRowView>(page.length);
  for (let s = 0; s < w.actorEnd; s++) {
    if (a.alive[s] !== 1) continue;
    const n = wanted.get(a.uid[s]!);
    if (n !== undefined) rows[n] = row(nameOf(w, s), a.asset[s]!, a.kingdom[s]!, a.x[s]! | 0, a.y[s]! | 0);
  }
  return { items: rows, matched };
}

export function worldStateView(w: World, paused: boolean) {
  let kingdomsAlive = 0;
  let kingdomsEver = 0;
  for (const k of w.kingdoms) {
    if (k.wild) continue;
    kingdomsEver++;
    if (k.alive) kingdomsAlive++;
  }
  let citiesAlive = 0;
  for (const c of w.cities) if (c.alive) citiesAlive++;
  return {
    width: w.width,
    height: w.height,
    seed: w.seed,
    tick: w.tick,
    paused,
    population_alive: w.population,
    population_lifetime: w.lifetime,
    kingdoms_alive: kingdomsAlive,
    kingdoms_ever_created: kingdomsEver,
    cities_alive: citiesAlive,
    cities_ever_created: w.cities.length,
    rules: rulesOf(w).id,
  };
}

/** Ids of the live civilised kingdoms in creation order (auto:N claims). */
export function civKingdomOrder(w: World): number[] {
  return w.kingdoms.filter((k) => k.alive && !k.wild).map((k) => k.id);
}
