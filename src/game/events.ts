// What happens in the sandbox world, told through the bridge's host (decisions §7): the one table
// of the kinds the sandbox emits, and the reporter that turns world changes into host.emit calls.
//
// Reporting only reads the world: it never draws from the world's random stream and never writes
// a world field, so a world runs the same with a recording host, a no-op host or none
// (test/game/determinism.test.ts). A host that throws is counted and ignored: emission never
// throws into the simulation.
//
// Fog (decisions §7, §11): every event names the kingdoms it is about, and a faction player under
// partial_intel sees it only when the list is empty (global) or names its claimed kingdom. So an
// event carries positions, names and counts only of what its own list covers:
// - an actor event names its actor's kingdom; a civilised nomad (no kingdom, kingdom_id null) is
//   named by NO_KINGDOM (0), which no claim resolves to, so fog hides nomads here as query_actors does;
// - a city or kingdom event names that kingdom, a war or a peace both sides, a conquest both sides;
// - an action at a place (spawn, power, paint) names the kingdoms whose actors or cities it touched,
//   or none (global) when it touched nothing; its fields say what was asked, never what it did to
//   each kingdom (the deaths it caused are actor_died events, each under its own kingdom).
import type { GameHost } from '../shared/game-module.ts';
import { ACTORS } from './assets.ts';
import { actorName } from './names.ts';
import { cityOf, forDisc, type City, type DeathCause, type Kingdom, type PeaceReason, type World, type WorldEventSink } from './world.ts';

interface EventKindInfo {
  description: string;
  fields: Readonly<Record<string, string>>;
  /** Fields a fogged player does not get when the event names other kingdoms beside its own (eventFog). */
  fog?: readonly string[];
}

/** decisions §7: above this many actor events (actor_born + actor_died) in one frame, the rest become population_changed. */
export const FRAME_ACTOR_EVENTS = 256;

const ACTOR_FIELDS = {
  name: "the creature's name",
  asset_id: 'its actor asset id (list_actors)',
  kingdom_id: 'its kingdom (a wild kingdom for animals and monsters), null for a civilised nomad',
  x: 'tile column where it was',
  y: 'tile row where it was',
} as const;

const SIDES = 'the two kingdoms, [{id, name}, {id, name}]';

/** Every kind the sandbox emits (decisions §7), with its fields: the one source for eventKinds and docs/sandbox-events.md. */
export const SANDBOX_EVENTS = {
  actor_born: {
    description:
      'A creature was born (parents bred), or a bitten creature rose as a zombie (after its actor_died, cause zombified). ' +
      'Spawned creatures are reported by spawned and power_invoked instead.',
    fields: ACTOR_FIELDS,
  },
  actor_died: {
    description: 'A creature died.',
    fields: {
      ...ACTOR_FIELDS,
      cause: 'age, hunger, plague, fire, lava, drowning, combat, zombified (bitten: it rises as a zombie) or power',
      power_id: 'the power that killed it when cause is power, else null',
    },
  },
  population_changed: {
    description: `Once more than ${FRAME_ACTOR_EVENTS} actor events fall in one frame: the rest of that frame's births and deaths, one summary per kingdom, at the end of the frame.`,
    fields: {
      kingdom_id: 'the kingdom (null: civilised nomads)',
      born: 'births of that kingdom in the frame not reported one by one',
      died: 'deaths of that kingdom in the frame not reported one by one',
      alive: 'live creatures of that kingdom at the end of the frame',
    },
  },
  spawned: {
    description: 'One spawn call put creatures into the world.',
    fields: {
      entity_id: 'the actor asset spawned',
      x: 'tile column asked for',
      y: 'tile row asked for',
      requested: 'how many were asked for',
      spawned: 'how many were placed',
      failed: 'how many found no tile they could live on',
      names: 'the names of the spawned creatures',
    },
    // Some of them may have joined another kingdom, or stand on its land: their names are its own.
    fog: ['names'],
  },
  city_founded: {
    description: "A city was founded (a new kingdom's capital, a colony, or a homeless people's new home).",
    fields: { city_id: 'the city', name: 'its name', kingdom_id: 'its kingdom', x: 'tile column of its centre', y: 'tile row of its centre' },
  },
  city_destroyed: {
    description: 'A city was abandoned: nobody lives in it any more. Its houses fall to ruins and its land is free again.',
    fields: { city_id: 'the city', name: 'its name', kingdom_id: 'the kingdom it belonged to', x: 'tile column of its centre', y: 'tile row of its centre' },
  },
  city_conquered: {
    description: 'A city changed hands in a war: its people now belong to the winner (sandbox kind beyond decisions §7).',
    fields: {
      city_id: 'the city',
      name: 'its name',
      from_kingdom_id: 'the kingdom that lost it',
      to_kingdom_id: 'the kingdom that took it',
      x: 'tile column of its centre',
      y: 'tile row of its centre',
    },
  },
  kingdom_founded: {
    description: 'Civilised nomads founded a kingdom (its capital follows as city_founded). Wild kingdoms are bookkeeping and not reported.',
    fields: { kingdom_id: 'the new kingdom', name: 'its name', race: 'its race', founder_name: 'the founder, its first king' },
  },
  kingdom_fell: {
    description: 'A kingdom has no people and no city left. Its wars end (peace_made, reason kingdom_fell).',
    fields: { kingdom_id: 'the kingdom', name: 'its name', race: 'its race' },
  },
  war_declared: {
    description: 'Two kingdoms whose lands came close went to war.',
    fields: { sides: `${SIDES}, the one that declared first` },
  },
  peace_made: {
    description: 'A war ended.',
    fields: { sides: SIDES, reason: 'treaty, world_peace (the law was switched on) or kingdom_fell (one side is gone)' },
  },
  power_invoked: {
    description: 'The world accepted one pulse of a god power (a pulsed invoke_power gives one per pulse).',
    fields: {
      power_id: 'the power',
      x: 'tile column',
      y: 'tile row',
      radius: 'the radius it used (its own size for a power without a brush, 0 for spawn powers and laws)',
      active: 'for a law (a toggle): whether it is on now; null for other powers',
    },
  },
  tiles_painted: {
    description: 'paint_tile changed the ground over a disc.',
    fields: {
      x: 'tile column of the centre',
      y: 'tile row of the centre',
      radius: 'the brush radius',
      tile_id: 'the tile type painted, or null',
      top_id: 'the top tile painted, or null',
      painted: 'tiles painted',
      skipped: 'tiles of the disc off the map, or where the top could not stand',
    },
  },
  paused: {
    description: 'The configured pause was switched on.',
    fields: { effective_paused: 'whether the world stands still now (always true)' },
  },
  resumed: {
    description: 'The configured pause was switched off.',
    fields: { effective_paused: 'whether the world still stands still (true while a window is open)' },
  },
  speed_changed: {
    description: 'The simulation speed changed.',
    fields: { speed_id: 'the new speed (list_speeds)', multiplier: 'its multiplier', previous: 'the speed before' },
  },
  window_opened: {
    description: 'A window opened (the welcome window at start when [Game] suppress_startup_window is false); it freezes the world.',
    fields: { window: 'the window' },
  },
  window_dismissed: {
    description: 'dismiss_window closed the open window.',
    fields: { window: 'the window that was closed' },
  },
} as const satisfies Record<string, EventKindInfo>;

export type SandboxEventKind = keyof typeof SANDBOX_EVENTS;
/** The fields an event of kind K carries: exactly the declared names (the compiler refuses others). */
export type SandboxEventFields<K extends SandboxEventKind> = { [F in keyof (typeof SANDBOX_EVENTS)[K]['fields']]: unknown };

export const SANDBOX_EVENT_KINDS = Object.freeze(Object.keys(SANDBOX_EVENTS) as SandboxEventKind[]);

/** The sandbox's eventFog: per kind, the fields its fog form cuts (docs/events.md, "The fog form"). */
export const SANDBOX_EVENT_FOG: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(Object.entries(SANDBOX_EVENTS as Record<string, EventKindInfo>).flatMap(([kind, info]) => (info.fog ? [[kind, info.fog] as const] : []))),
);

/** The kingdom list of a civilised nomad's events: no kingdom is 0, so no claim sees it under fog. */
export const NO_KINGDOM = 0;

const GLOBAL: readonly number[] = Object.freeze([]);

/**
 * The kingdoms an action touched: a small set reused call after call (an action touches a handful
 * of kingdoms, so a linear scan beats a hash set), listed sorted.
 */
export class KingdomSet {
  private readonly ids: number[] = [];

  clear(): this {
    this.ids.length = 0;
    return this;
  }

  add(id: number): void {
    if (!this.ids.includes(id)) this.ids.push(id);
  }

  /** The kingdom of the live actor at index `actor` (NO_KINGDOM for a nomad). */
  addActor(w: World, actor: number): void {
    this.add(w.a.kingdom[actor]!);
  }

  /** The kingdom of the city owning tile `i`, if any. */
  addTile(w: World, i: number): void {
    const city = cityOf(w, w.owner[i]!);
    if (city?.alive) this.add(city.kingdomId);
  }

  /** Kingdoms of the cities owning the disc's tiles and of the live actors standing on them. */
  addDisc(w: World, x: number, y: number, radius: number): void {
    forDisc(w, x, y, radius, (i) => {
      if (w.owner[i] !== 0) this.addTile(w, i);
    });
    const r = Math.max(0, Math.floor(radius));
    const r2 = r * r + r; // forDisc's disc
    const a = w.a;
    const end = w.actorEnd;
    for (let s = 0; s < end; s++) {
      if (a.alive[s] !== 1) continue;
      const dx = (a.x[s]! | 0) - x;
      const dy = (a.y[s]! | 0) - y;
      if (dx * dx + dy * dy <= r2) this.add(a.kingdom[s]!);
    }
  }

  /** Live actors within `reach` tiles of the centre of (x, y) (the powers' test), by kingdom. */
  addActorsNear(w: World, x: number, y: number, reach: number): void {
    const a = w.a;
    const cx = x + 0.5;
    const cy = y + 0.5;
    const reach2 = reach * reach;
    const end = w.actorEnd;
    for (let s = 0; s < end; s++) {
      if (a.alive[s] !== 1) continue;
      const dx = a.x[s]! - cx;
      const dy = a.y[s]! - cy;
      if (dx * dx + dy * dy <= reach2) this.add(a.kingdom[s]!);
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /** A fresh sorted list (the host may keep it). */
  list(): number[] {
    return this.ids.slice().sort((p, q) => p - q);
  }
}

/**
 * Sends the sandbox's events through a host. One per live world chain (init creates it; a world
 * swap hands it to the new world). The frame is the time from one update() to the next: update()
 * calls endFrame() first, which sends the previous frame's population summaries.
 */
export class WorldEvents implements WorldEventSink {
  /** host.emit calls that threw (ignored: emission never throws into the simulation). */
  emitErrors = 0;
  /** Actor events (born + died) so far this frame. */
  private actorEvents = 0;
  /** Past FRAME_ACTOR_EVENTS: births and deaths per kingdom id, and the kingdoms that have some. */
  private overBorn: Int32Array = new Int32Array(64);
  private overDied: Int32Array = new Int32Array(64);
  private readonly overKingdoms: number[] = [];
  private aliveScratch = new Int32Array(64);
  /** [id] lists, one per kingdom id, built once: actor events are the most frequent. */
  private readonly singles: Array<readonly number[]> = [];
  private readonly scratch = new KingdomSet();

  constructor(private readonly host: Pick<GameHost, 'emit'>) {}

  emit<K extends SandboxEventKind>(kind: K, fields: SandboxEventFields<K>, kingdomIds: readonly number[] = GLOBAL): void {
    try {
      this.host.emit(kind, fields as Record<string, unknown>, kingdomIds);
    } catch {
      this.emitErrors++;
    }
  }

  /** The list naming one kingdom (shared and frozen: the host only reads it). */
  only(kingdomId: number): readonly number[] {
    let list = this.singles[kingdomId];
    if (list === undefined) {
      list = Object.freeze([kingdomId]);
      this.singles[kingdomId] = list;
    }
    return list;
  }

  /** An empty KingdomSet for one action (reused: read it with list() before the next action). */
  touched(): KingdomSet {
    return this.scratch.clear();
  }

  actorBorn(w: World, actor: number): void {
    if (++this.actorEvents > FRAME_ACTOR_EVENTS) {
      this.overflow(w.a.kingdom[actor]!, true);
      return;
    }
    const a = w.a;
    const kingdom = a.kingdom[actor]!;
    this.emit(
      'actor_born',
      {
        name: actorName(w.seed, a.uid[actor]!, a.born[actor]!),
        asset_id: ACTORS[a.asset[actor]!]!.id,
        kingdom_id: kingdom === NO_KINGDOM ? null : kingdom,
        x: a.x[actor]! | 0,
        y: a.y[actor]! | 0,
      },
      this.only(kingdom),
    );
  }

  actorDied(w: World, actor: number, cause: DeathCause, powerId: string | null): void {
    if (++this.actorEvents > FRAME_ACTOR_EVENTS) {
      this.overflow(w.a.kingdom[actor]!, false);
      return;
    }
    const a = w.a;
    const kingdom = a.kingdom[actor]!;
    this.emit(
      'actor_died',
      {
        name: actorName(w.seed, a.uid[actor]!, a.born[actor]!),
        asset_id: ACTORS[a.asset[actor]!]!.id,
        kingdom_id: kingdom === NO_KINGDOM ? null : kingdom,
        x: a.x[actor]! | 0,
        y: a.y[actor]! | 0,
        cause,
        power_id: powerId,
      },
      this.only(kingdom),
    );
  }

  /** Counts only: past the frame's budget no per-actor object is built. */
  private overflow(kingdom: number, born: boolean): void {
    if (kingdom >= this.overBorn.length) {
      const size = Math.max(kingdom + 1, this.overBorn.length * 2);
      this.overBorn = grow(this.overBorn, size);
      this.overDied = grow(this.overDied, size);
    }
    if (this.overBorn[kingdom] === 0 && this.overDied[kingdom] === 0) this.overKingdoms.push(kingdom);
    if (born) this.overBorn[kingdom]!++;
    else this.overDied[kingdom]!++;
  }

  /**
   * Closes the frame: one population_changed per kingdom whose actor events went past the budget
   * (alive counted now, in one pass over the actors), then a fresh budget.
   */
  endFrame(w: World): void {
    this.actorEvents = 0;
    const kingdoms = this.overKingdoms;
    if (kingdoms.length === 0) return;
    const alive = this.countAlive(w);
    for (const k of kingdoms) {
      this.emit(
        'population_changed',
        { kingdom_id: k === NO_KINGDOM ? null : k, born: this.overBorn[k]!, died: this.overDied[k]!, alive: k < alive.length ? alive[k]! : 0 },
        this.only(k),
      );
      this.overBorn[k] = 0;
      this.overDied[k] = 0;
    }
    kingdoms.length = 0;
  }

  private countAlive(w: World): Int32Array {
    const size = w.kingdoms.length + 1;
    if (this.aliveScratch.length < size) this.aliveScratch = new Int32Array(Math.max(size, this.aliveScratch.length * 2));
    const counts = this.aliveScratch;
    counts.fill(0);
    const a = w.a;
    const end = w.actorEnd;
    for (let s = 0; s < end; s++) if (a.alive[s] === 1) counts[a.kingdom[s]!]!++;
    return counts;
  }

  // --- Kingdoms and cities --------------------------------------------------------------------

  cityFounded(city: City): void {
    this.emit('city_founded', { city_id: city.id, name: city.name, kingdom_id: city.kingdomId, x: city.x, y: city.y }, this.only(city.kingdomId));
  }

  cityDestroyed(city: City): void {
    this.emit('city_destroyed', { city_id: city.id, name: city.name, kingdom_id: city.kingdomId, x: city.x, y: city.y }, this.only(city.kingdomId));
  }

  cityConquered(city: City, fromKingdom: number): void {
    this.emit(
      'city_conquered',
      { city_id: city.id, name: city.name, from_kingdom_id: fromKingdom, to_kingdom_id: city.kingdomId, x: city.x, y: city.y },
      pair(fromKingdom, city.kingdomId),
    );
  }

  kingdomFounded(w: World, kingdom: Kingdom, founder: number): void {
    const a = w.a;
    this.emit(
      'kingdom_founded',
      { kingdom_id: kingdom.id, name: kingdom.name, race: kingdom.race, founder_name: actorName(w.seed, a.uid[founder]!, a.born[founder]!) },
      this.only(kingdom.id),
    );
  }

  kingdomFell(kingdom: Kingdom): void {
    this.emit('kingdom_fell', { kingdom_id: kingdom.id, name: kingdom.name, race: kingdom.race }, this.only(kingdom.id));
  }

  warDeclared(by: Kingdom, against: Kingdom): void {
    this.emit('war_declared', { sides: sides(by, against) }, pair(by.id, against.id));
  }

  peaceMade(a: Kingdom, b: Kingdom, reason: PeaceReason): void {
    this.emit('peace_made', { sides: sides(a, b), reason }, pair(a.id, b.id));
  }
}

function grow(from: Int32Array, size: number): Int32Array {
  const to = new Int32Array(size);
  to.set(from);
  return to;
}

function pair(p: number, q: number): number[] {
  return p < q ? [p, q] : [q, p];
}

function sides(a: Kingdom, b: Kingdom): Array<{ id: number; name: string }> {
  return [
    { id: a.id, name: a.name },
    { id: b.id, name: b.name },
  ];
}

// --- Hooks for the simulation: one load and a null check when nobody listens ------------------

export function reportBirth(w: World, actor: number): void {
  const events = w.events;
  if (events !== null) events.actorBorn(w, actor);
}

export function reportDeath(w: World, actor: number, cause: DeathCause, powerId: string | null = null): void {
  const events = w.events;
  if (events !== null) events.actorDied(w, actor, cause, powerId);
}
