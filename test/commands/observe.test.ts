// observe over HTTP: fixed shapes whatever the world's size, the fog of partial_intel (a faction
// player sees no other kingdom's actors), and an action with its observation in one batch.
import t from 'tap';
import { agent, startAgents } from '../multi-agent/helpers.ts';

t.setTimeout(120_000);

interface Encoded {
  dtype: string;
  shape: number[];
  base64: string;
}

const ITEM_BYTES: Record<string, number> = { uint8: 1, uint16: 2, int32: 4 };

/** The array an Encoded field carries (little-endian, as the command promises). */
function decode(field: Encoded): number[] {
  const bytes = Buffer.from(field.base64, 'base64');
  const size = ITEM_BYTES[field.dtype]!;
  const out: number[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    out.push(size === 1 ? bytes.readUInt8(at) : size === 2 ? bytes.readUInt16LE(at) : bytes.readInt32LE(at));
  }
  return out;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

t.test('fog, shapes and one batch with an action', async (t) => {
  const { as } = await startAgents(t, {
    scenario: 'pvp',
    partial_intel: true,
    agents: [agent('red', 'faction_player', { kingdom_claim: 'auto:0' }), agent('blue', 'faction_player', { kingdom_claim: 'auto:1' }), agent('zeus', 'god')],
  });
  // Paused, so that counts read in separate requests describe one world.
  t.equal((await as('zeus', 'pause')).status, 200);
  const kingdoms = (await as('zeus', 'list_kingdoms')).body.result.items as Array<{ id: number; units_count: number; cities_count: number }>;
  const red = (await as('red', 'whoami')).body.result.claimed_kingdom_id as number;
  const blue = (await as('blue', 'whoami')).body.result.claimed_kingdom_id as number;
  t.not(red, blue);

  const seen = (await as('red', 'observe', { grid: 8 })).body.result;
  t.equal(seen.kingdom_id, red);
  t.equal(seen.fogged, true);
  const planes = decode(seen.actors);
  t.same(seen.actors.shape, [3, 8, 8]);
  t.equal(planes.length, 3 * 64, 'the base64 holds exactly the shape');
  const mine = kingdoms.find((k) => k.id === red)!;
  t.equal(sum(planes.slice(0, 64)), mine.units_count, 'own plane: every unit of the claimed kingdom');
  t.equal(sum(planes.slice(64)), 0, 'no other kingdom and no wild actor under partial_intel');
  t.same(decode(seen.counts).slice(0, 3), [1, mine.units_count, mine.cities_count], 'alive, population, cities');
  t.same(seen.tiles.shape, [8, 8]);
  t.same(seen.anchors.shape, [4, 2]);

  const asked = (await as('red', 'observe', { grid: 8, kingdom_id: blue })).body.result;
  t.notOk('kingdom_id' in asked, 'naming another kingdom gets no kingdom, no error');
  t.same(decode(asked.counts), [0, 0, 0, 0, 0]);
  t.equal(sum(decode(asked.actors)), 0);

  const god = (await as('zeus', 'observe', { grid: 8, kingdom_id: blue })).body.result;
  t.equal(god.fogged, false, 'read_all sees through the fog');
  const all = decode(god.actors);
  t.ok(sum(all.slice(64, 128)) >= mine.units_count, "the god sees red's units among the others");
  t.ok(sum(all.slice(128)) > 0, 'and the wild ones');

  // The same shapes on a world four times as large.
  t.equal((await as('zeus', 'generate_world', { zone_x: 4, zone_y: 4, seed: 9 })).status, 200);
  const large = (await as('red', 'observe', { grid: 8 })).body.result;
  t.equal(large.width, 256);
  for (const key of ['tiles', 'actors', 'territory', 'counts', 'anchors'] as const) {
    t.same(large[key].shape, seen[key].shape, `${key}: same shape on a 256 tile map`);
    t.equal(large[key].base64.length, seen[key].base64.length, `${key}: same size`);
  }
  t.equal(sum(decode(large.actors).slice(64)), 0, 'still fogged after a new world');

  // An action and the observation that follows it, in one request.
  const anchors = decode(large.anchors);
  const race = ((await as('zeus', 'list_kingdoms')).body.result.items as Array<{ id: number; race: string }>).find((k) => k.id === large.kingdom_id)!.race;
  const unit = (await as('red', 'list_actors')).body.result.items.find((a: { race: string }) => a.race === race).id;
  const before = decode(large.counts)[1]!;
  const batch = await as('red', 'batch', {
    commands: [
      { name: 'spawn', args: { entity_id: unit, x: anchors[0], y: anchors[1], count: 1 } },
      { name: 'observe', args: { grid: 8 } },
    ],
  });
  t.equal(batch.status, 200);
  const [spawned, after] = batch.body.result.results;
  t.equal(spawned.ok, true, JSON.stringify(spawned));
  t.equal(decode(after.result.counts)[1], before + 1, 'the observation sees the unit spawned before it');
});

t.test('bad args: grid and anchors out of range are BAD_ARGS', async (t) => {
  const { as } = await startAgents(t, { agents: [agent('zeus', 'god')] });
  for (const args of [{ grid: 3 }, { grid: 65 }, { grid: 1.5 }, { anchors: 17 }, { anchors: -1 }, { nope: 1 }]) {
    const reply = await as('zeus', 'observe', args);
    t.equal(reply.status, 400, JSON.stringify(args));
    t.equal(reply.body.error.code, 'BAD_ARGS');
  }
});

t.test('the bridge applies the fog itself, whatever the game returns', async (t) => {
  const { default: observe } = await import('../../src/commands/read/observe.ts');
  const { ROLE_MASKS } = await import('../../src/auth/permissions.ts');
  const views: Array<{ kingdomId: number | null; others: boolean }> = [];
  const cells = 4;
  const game = {
    currentTick: () => 7,
    worldSize: () => ({ width: 64, height: 64 }),
    // A careless game: it fills every plane for every viewer.
    observeGrid: (view: { cells: number; kingdomId: number | null; others: boolean }) => {
      views.push({ kingdomId: view.kingdomId, others: view.others });
      return {
        tiles: new Uint8Array(cells * cells).fill(2),
        actors: new Uint16Array(3 * cells * cells).fill(5),
        territory: new Uint16Array(cells * cells).fill(1),
        counts: { alive: true, population: 80, cities: 2, buildings: 9, territory: 16 },
        anchors: [{ x: 3, y: 4 }],
      };
    },
  };
  const caller = (role: keyof typeof ROLE_MASKS, claim: number | null) => ({
    agentId: role,
    agentIndex: 0,
    role,
    permissions: ROLE_MASKS[role],
    claimedKingdomId: claim,
    scenario: 'pvp',
    partialIntel: true,
    turnBased: false,
    legacyMode: false,
  });
  const run = (args: object, who: ReturnType<typeof caller>): any =>
    (observe.frame as (env: unknown) => unknown)({ game, args: { grid: cells, ...args }, caller: who });

  const player = run({}, caller('faction_player', 3));
  t.same(views.at(-1), { kingdomId: 3, others: false }, 'the game is asked for the claim, without the others');
  const planes = decode(player.actors);
  t.equal(sum(planes.slice(0, 16)), 80, 'own plane kept');
  t.equal(sum(planes.slice(16)), 0, 'the other planes are zeroed by the bridge');
  t.same(decode(player.anchors), [3, 4, -1, -1, -1, -1, -1, -1], 'missing anchors are -1');
  t.same(decode(player.counts), [1, 80, 2, 9, 16]);
  t.equal(player.tick, 7);

  run({ kingdom_id: 4 }, caller('faction_player', 3));
  t.same(views.at(-1), { kingdomId: null, others: false }, 'another kingdom than the claim: no viewer');
  run({}, caller('faction_player', null));
  t.same(views.at(-1), { kingdomId: null, others: false }, 'no claim: no viewer');
  const observer = run({ kingdom_id: 4 }, caller('observer', null));
  t.same(views.at(-1), { kingdomId: 4, others: true }, 'read_all: any kingdom, and the others');
  t.equal(sum(decode(observer.actors)), 3 * 16 * 5);
});
