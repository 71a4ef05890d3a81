// The research promise on the sandbox: one seed and one sequence of commands, each at its tick,
// give the same stateHash() at every tick, whatever the speed, the pause, events and reads between
// them; another seed gives another world. Two live copies of the module (a query string makes a
// second instance of index.ts) run side by side: one reports events to a host and is read at random
// between commands, the other runs bare. Hashes and answers are compared after every command.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import type { SandboxSnapshot } from '../../src/game/snapshot.ts';
import type { GameHost } from '../../src/shared/game-module.ts';
import { treeModule } from '../helpers/paths.ts';
import { SMALL } from './helpers.ts';

type Game = typeof import('../../src/game/index.ts');
const load = async (tag: string) => (await import(`${treeModule('src/game/index.ts').href}?twin=${tag}`)) as Game;
const [observed, bare] = await Promise.all([load('observed'), load('bare')]);
const { ACTOR_IDS, POWER_IDS, SPEED_IDS, TILE_IDS, TOP_IDS, NO_TOP } = observed;

const SIZE = SMALL.zonesX * 64; // a 128×128 world: a run stays within a second
const LAWS = ['rain_toggle', 'infinite_lifespan', 'world_peace'];
const CIVS = ['human', 'elf', 'orc', 'dwarf'];
/** Powers aimed at a city's centre: they kill its people, so cities fall and kingdoms with them. */
const CITY_STRIKES = ['atomic_bomb', 'atomic_bomb', 'bomb', 'meteorite', 'lava_bucket', 'water_bucket', 'plague'];

type Command =
  | { kind: 'spawn'; entity: string; x: number; y: number; count: number; adult: boolean }
  | { kind: 'paint'; x: number; y: number; tile: string | null; top: string | null; radius: number }
  | { kind: 'power'; power: string; x: number; y: number; radius: number | null }
  | { kind: 'strike'; power: string; city: number }
  | { kind: 'pause'; paused: boolean }
  | { kind: 'speed'; speed: string }
  | { kind: 'dismiss' }
  | { kind: 'advance'; ticks: number };

const coord = fc.integer({ min: 0, max: SIZE - 1 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('spawn' as const),
      entity: fc.constantFrom(...ACTOR_IDS),
      x: coord,
      y: coord,
      count: fc.integer({ min: 1, max: 30 }),
      adult: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('paint' as const),
      x: coord,
      y: coord,
      tile: fc.option(fc.constantFrom(...TILE_IDS)),
      top: fc.option(fc.constantFrom(NO_TOP, ...TOP_IDS)),
      radius: fc.integer({ min: 0, max: 6 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('power' as const),
      power: fc.constantFrom(...POWER_IDS),
      x: coord,
      y: coord,
      radius: fc.option(fc.integer({ min: 0, max: 8 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('power' as const),
      power: fc.constantFrom(...LAWS),
      x: fc.constant(0),
      y: fc.constant(0),
      radius: fc.constant(null),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('strike' as const), power: fc.constantFrom(...CITY_STRIKES), city: fc.nat(64) }) },
  // Adult nomads found kingdoms of their own within a few dozen ticks.
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('spawn' as const),
      entity: fc.constantFrom(...CIVS),
      x: coord,
      y: coord,
      count: fc.integer({ min: 5, max: 30 }),
      adult: fc.constant(true),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), paused: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('speed' as const), speed: fc.constantFrom(...SPEED_IDS) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'dismiss' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ticks: fc.integer({ min: 1, max: 60 }) }) },
);

/**
 * What the observed side does between commands and the bare side does not: every read the module
 * offers, with its own arguments (pool functions on a snapshot included); and, no reads but they
 * must change nothing either, a save and load of its own world, and a savepoint taken, the world
 * run on and struck, and the savepoint restored.
 */
const ASIDES: Array<(g: Game, n: number) => unknown> = [
  (g) => g.getWorldState(),
  (g, n) => g.getTile(n % SIZE, (n >> 7) % SIZE),
  (g, n) => g.listKingdoms(n % 2 === 0),
  (g) => g.listCities(),
  (g, n) => g.listCities(n % 8),
  (g, n) => g.queryActors({ alive: true, limit: 50, offset: n % 20 }),
  (g, n) => g.queryActors({ alive: true, race: CIVS[n % CIVS.length]!, limit: 10, offset: 0, in_rect: { x: 0, y: 0, w: 64 + (n % 64), h: 96 } }),
  (g) => g.queryActors({ alive: false, limit: 100, offset: 0 }),
  (g) => g.kingdomOrder(),
  (g) => g.listPowers(),
  (g) => g.getUiState(),
  (g) => g.currentSpeed(),
  (g) => g.currentTick(),
  (g) => g.stateHash(),
  (g) => g.liveSnapshotHash(),
  (g) => g.snapshotBytes(g.snapshot()),
  (g) => g.encodeSave(g.snapshotWorld(), false),
  (g) => g.renderSnapshot(g.snapshotWorld(), 32),
  (g, n) => g.installWorld(g.decodeSave(g.encodeSave(g.snapshotWorld(), n % 2 === 0))),
  (g, n) => {
    const saved = g.snapshot();
    g.advance(1 + (n % 40));
    g.invokePower('meteorite', n % SIZE, (n >> 7) % SIZE, null);
    g.restore(saved);
  },
];

/** The coordinates of a command that aims at a city: the n-th city ever founded, alive or not, else the map's centre. */
function cityCentre(g: Game, n: number): { x: number; y: number } {
  const cities = (g.snapshotWorld() as SandboxSnapshot).cities;
  const city = cities[n % Math.max(1, cities.length)];
  return city ? { x: city.x, y: city.y } : { x: SIZE >> 1, y: SIZE >> 1 };
}

/** What a command answered, or the code it was refused with (a crash fails the test): both copies must agree on it too. */
function apply(g: Game, c: Command, target: { x: number; y: number } | null): unknown {
  try {
    switch (c.kind) {
      case 'spawn':
        return g.spawn(c.entity, c.x, c.y, c.count, c.adult);
      case 'paint':
        return g.paintTile(c.x, c.y, c.tile, c.top, c.radius);
      case 'power':
        return g.invokePower(c.power, c.x, c.y, c.radius);
      case 'strike':
        return g.invokePower(c.power, target!.x, target!.y, null);
      case 'pause':
        return g.setPaused(c.paused);
      case 'speed':
        return g.setSpeed(c.speed);
      case 'dismiss':
        return g.dismissWindow();
      case 'advance':
        g.advance(c.ticks);
        return g.currentTick();
    }
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string') throw err;
    return { refused: code };
  }
}

const host = (sink: string[]): GameHost => ({ drainFrame() {}, stopped: new Promise<void>(() => {}), emit: (kind) => void sink.push(kind) });

t.test('same seed, same commands at the same ticks: the same hash after every command, reads and events on one side only', (t) => {
  let kingdomChanges = 0;
  let ticksRun = 0;
  let eventsSeen = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      fc.boolean(),
      fc.array(fc.record({ command, asides: fc.array(fc.nat(ASIDES.length * 4096), { maxLength: 3 }) }), { minLength: 6, maxLength: 16 }),
      (seed, showWelcome, steps) => {
        const events: string[] = [];
        const options = { ...SMALL, seed, suppressStartupWindow: !showWelcome };
        observed.init(options, host(events));
        bare.init(options);
        if (observed.stateHash() !== bare.stateHash()) {
          t.fail(`seed ${seed}: the fresh worlds differ`);
          return false;
        }
        const start = observed.getWorldState();
        for (const { command: c, asides } of steps) {
          for (const r of asides) ASIDES[r % ASIDES.length]!(observed, r >> 4);
          const target = c.kind === 'strike' ? cityCentre(observed, c.city) : null;
          const a = apply(observed, c, target);
          const b = apply(bare, c, target);
          if (!isDeepStrictEqual(a, b)) {
            t.fail(`${JSON.stringify(c)} answered differently at tick ${bare.currentTick()}`, { found: a, wanted: b });
            return false;
          }
          if (observed.stateHash() !== bare.stateHash()) {
            t.fail(`hashes part after ${JSON.stringify(c)} at tick ${bare.currentTick()}`);
            return false;
          }
        }
        const end = observed.getWorldState();
        if (end.kingdoms_ever_created !== start.kingdoms_ever_created || end.kingdoms_alive !== start.kingdoms_alive) kingdomChanges++;
        ticksRun += end.tick - start.tick;
        eventsSeen += events.length;
        return true;
      },
    ),
    { numRuns: 40, seed: 2718, endOnFailure: true },
  );
  // The runs did what they are about: kingdoms rose and fell, the worlds moved, and the observed side reported.
  t.ok(kingdomChanges >= 10, `${kingdomChanges} runs changed the kingdoms`);
  t.ok(ticksRun > 1000, `${ticksRun} ticks run`);
  t.ok(eventsSeen > 200, `${eventsSeen} events reported on the observed side`);
  t.end();
});

t.test('another seed gives another hash, at the start and as the worlds run', (t) => {
  const pairs: string[][] = [];
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 31 - 2 }), fc.integer({ min: 1, max: 60 }), (seed, ticks) => {
      observed.init({ ...SMALL, seed });
      bare.init({ ...SMALL, seed: seed + 1 });
      const before = [observed.stateHash(), bare.stateHash()];
      observed.advance(ticks);
      bare.advance(ticks);
      pairs.push(before, [observed.stateHash(), bare.stateHash()]);
      return before[0] !== before[1] && observed.stateHash() !== bare.stateHash();
    }),
    { numRuns: 8, seed: 31415 },
  );
  t.equal(pairs.length, 16);
  t.ok(
    pairs.every(([a, b]) => a !== b),
    'every pair differs',
  );
  t.end();
});
