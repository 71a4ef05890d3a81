// decisions §11 (fog bypass): under partial_intel and without read_all, no read answer
// holds another kingdom's actors or cities: not their names, positions or counts. get_tile was the
// hole (its actors listed every kingdom's). A property test (fast-check, bounded) over every read
// command of /capabilities, for faction players with a claim and one without: in a paused world
// (nothing moves between two calls), each answer is what a god sees, filtered to the caller's
// kingdom; and no answer anywhere holds an object of another kingdom or the name of another
// kingdom's actor or city. list_kingdoms and objective_status stay unfiltered (decisions §4).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, tempDir, writeConfig } from '../helpers/bridge.ts';
import { TEST_CAPS } from './fuzz-setup.ts';
import { argsArbitrary, JsonObject, toJsonText, type CommandDescriptor } from './schema-arbitrary.ts';

// Strong tokens (at least 32 characters, 16 distinct), as agents.json will require.
const tokenOf = (id: string) => `fog-${id}-ABCDEFGHJKLMNPQRSTUVWXYZ23456789`;
const UNFILTERED = new Set(['list_kingdoms', 'objective_status']);
const RUNS = Number(process.env.GCB_FOG_RUNS ?? 80);

interface Row {
  name: string;
  kingdom_id: number | null;
  x?: number;
  y?: number;
}

t.test('no faction player under partial_intel reads another kingdom', async (t) => {
  const dir = tempDir('gcb-fog-');
  writeConfig(dir);
  const agents = [
    { id: 'athena', token: tokenOf('athena'), role: 'faction_player', kingdom_claim: 'auto:0' },
    { id: 'ares', token: tokenOf('ares'), role: 'faction_player', kingdom_claim: 'auto:1' },
    { id: 'nobody', token: tokenOf('nobody'), role: 'faction_player' },
    { id: 'zeus', token: tokenOf('zeus'), role: 'god' },
  ];
  writeFileSync(join(dir, 'agents.json'), JSON.stringify({ scenario: 'pvp', partial_intel: true, agents }));
  const b = await startTestBridge(t, { game: SANDBOX_GAME, configDir: dir });
  const as = async (id: string, name: string, args?: unknown) => {
    // Args from schema-arbitrary are a JSON tree (JsonObject); the ones made here are plain objects.
    const argsText = args instanceof JsonObject ? toJsonText(args) : JSON.stringify(args);
    const text = args === undefined ? JSON.stringify({ name }) : `{"name":${JSON.stringify(name)},"args":${argsText}}`;
    const response = await fetch(`${b.bridge.url}/cmd`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(id)}`, 'content-type': 'application/json' },
      body: text,
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  // A still world: every answer below is about the same state.
  t.equal((await as('zeus', 'pause')).status, 200);
  const alive: Row[] = (await as('zeus', 'query_actors', { limit: 5000 })).body.result.items;
  const dead: Row[] = (await as('zeus', 'query_actors', { limit: 5000, alive: false })).body.result.items;
  const cities: Row[] = (await as('zeus', 'list_cities')).body.result.items;
  const kingdoms: Array<{ id: number }> = (await as('zeus', 'list_kingdoms', { include_wild: true })).body.result.items;
  const claims = new Map<string, number | null>();
  for (const id of ['athena', 'ares', 'nobody']) claims.set(id, (await as(id, 'whoami')).body.result.claimed_kingdom_id);
  t.ok(claims.get('athena') !== null && claims.get('ares') !== null && claims.get('athena') !== claims.get('ares'), 'two rival claims');
  t.equal(claims.get('nobody'), null);
  const kingdomsOnTiles = new Map<string, Set<number | null>>();
  for (const actor of alive) {
    const key = `${actor.x},${actor.y}`;
    if (!kingdomsOnTiles.has(key)) kingdomsOnTiles.set(key, new Set());
    kingdomsOnTiles.get(key)!.add(actor.kingdom_id);
  }
  t.ok(
    alive.some((a) => a.kingdom_id !== claims.get('athena')),
    `the world holds other kingdoms' actors (${alive.length} actors, ${cities.length} cities)`,
  );

  /** Names of another kingdom's actors and cities, less any name the caller's own kingdom also uses. */
  const foreignNames = (claim: number | null): Set<string> => {
    const own = new Set([...alive, ...dead, ...cities].filter((row) => claim !== null && row.kingdom_id === claim).map((row) => row.name));
    return new Set([...alive, ...dead, ...cities].filter((row) => row.kingdom_id !== claim && !own.has(row.name)).map((row) => row.name));
  };
  /** Everything in an answer that belongs to another kingdom: objects with its kingdom_id, strings with its names. */
  const leaks = (value: unknown, claim: number | null, names: Set<string>, path = 'result', out: string[] = []): string[] => {
    if (typeof value === 'string') {
      if (names.has(value)) out.push(`${path} = ${JSON.stringify(value)}, a name of another kingdom`);
    } else if (Array.isArray(value)) {
      value.forEach((item, n) => leaks(item, claim, names, `${path}[${n}]`, out));
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      // A caller's own `command` record (recv_events) echoes the args it sent itself, enemy
      // kingdom ids included: that tells it nothing it did not know. Its other fields still count.
      if (record.kind === 'command' && typeof record.args === 'object') {
        const { args: _own, ...rest } = record;
        return leaks(rest, claim, names, path, out);
      }
      if ('kingdom_id' in record && record.kingdom_id !== claim) out.push(`${path}.kingdom_id = ${String(record.kingdom_id)}`);
      for (const [key, child] of Object.entries(record)) leaks(child, claim, names, `${path}.${key}`, out);
    }
    return out;
  };

  const caps = (await (await b.fetch('/capabilities', { headers: { authorization: `Bearer ${tokenOf('zeus')}` } })).json()) as {
    commands: Array<CommandDescriptor & { category: string }>;
  };
  const reads = caps.commands.filter((c) => c.category === 'read' && !UNFILTERED.has(c.name));
  t.ok(reads.some((c) => c.name === 'get_tile') && reads.some((c) => c.name === 'query_actors') && reads.some((c) => c.name === 'list_cities'));

  const positions = [...kingdomsOnTiles.keys()].map((key) => key.split(',').map(Number) as [number, number]);
  const kingdomIds = [...kingdoms.map((k) => k.id), 0, -1, 9999];
  const races = [...new Set(alive.map((a) => (a as unknown as { asset_id: string }).asset_id))];
  const point = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...positions) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: -2, max: 260 }), fc.integer({ min: -2, max: 260 })) },
  );
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  // Args aimed at where the other kingdoms are; any other read command gets valid args from its schema.
  const argsFor = (command: CommandDescriptor): fc.Arbitrary<unknown> => {
    switch (command.name) {
      case 'get_tile':
        return point.map(([x, y]) => ({ x, y }));
      case 'list_cities':
        return optional(fc.constantFrom(...kingdomIds)).map((kingdom_id) => (kingdom_id === undefined ? {} : { kingdom_id }));
      case 'query_actors':
        return fc
          .record(
            {
              kingdom_id: fc.constantFrom(...kingdomIds),
              race: fc.constantFrom(...races, 'human', 'orc', 'elf', 'dwarf'),
              in_rect: point.chain(([x, y]) =>
                fc.record({ x: fc.constant(x - 4), y: fc.constant(y - 4), w: fc.integer({ min: 1, max: 40 }), h: fc.integer({ min: 1, max: 40 }) }),
              ),
              alive: fc.boolean(),
              limit: fc.integer({ min: 1, max: 5000 }),
              offset: fc.integer({ min: 0, max: 20 }),
            },
            { requiredKeys: [] },
          )
          .map((args) => {
            const { race: _race, ...rest } = args as Record<string, unknown>;
            return rest; // asset ids are not races: leave race out, the filter is by kingdom and place
          });
      default:
        // The fuzz's caps: without them recv_events drew wait_ms up to 25 s (the paused world emits
        // nothing), and 80 runs took 5 to 58 s, past the file's 60 s limit once at load.
        return argsArbitrary(command.schema, { caps: TEST_CAPS });
    }
  };

  /** What a scoped caller must see: the god's answer filtered to its kingdom (null: no claim). */
  const expected = async (command: string, args: any, claim: number | null): Promise<unknown> => {
    if (command === 'get_tile') {
      const god = await as('zeus', command, args);
      if (god.status !== 200) return god.body.error.code;
      const actors = god.body.result.actors.filter((a: Row) => claim !== null && a.kingdom_id === claim);
      return { ...god.body.result, actors, actor_count: actors.length };
    }
    if (command !== 'list_cities' && command !== 'query_actors') return undefined;
    const other = claim === null || (args.kingdom_id !== undefined && args.kingdom_id !== claim);
    if (command === 'list_cities') return other ? { items: [], count: 0 } : (await as('zeus', command, { ...args, kingdom_id: claim })).body.result;
    if (command === 'query_actors') {
      const offset = args.offset ?? 0;
      const limit = args.limit ?? 500;
      if (other) return { items: [], matched: 0, returned: 0, offset, limit, has_more: false };
      return (await as('zeus', command, { ...args, kingdom_id: claim })).body.result;
    }
    return undefined;
  };

  let checked = 0;
  let withForeignActors = 0;
  for (const player of ['athena', 'ares', 'nobody']) {
    const claim = claims.get(player)!;
    const names = foreignNames(claim);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...reads).chain((command) => argsFor(command).map((args) => ({ command: command.name, args }))),
        async ({ command, args }) => {
          const reply = await as(player, command, args);
          checked++;
          if (reply.status === 200) {
            const found = leaks(reply.body.result, claim, names);
            if (found.length > 0) throw new Error(`${player} ${command} ${JSON.stringify(args)}: ${found.slice(0, 3).join('; ')}`);
          } else if (reply.status >= 500) {
            throw new Error(`${player} ${command} ${JSON.stringify(args)}: ${reply.status} ${JSON.stringify(reply.body.error)}`);
          }
          const want = await expected(command, args, claim);
          if (want === undefined) return;
          if (command === 'get_tile' && kingdomsOnTiles.get(`${(args as any).x},${(args as any).y}`)?.size) withForeignActors++;
          const got = reply.status === 200 ? reply.body.result : reply.body.error.code;
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            throw new Error(
              `${player} ${command} ${JSON.stringify(args)}: got ${JSON.stringify(got).slice(0, 300)}, a god filtered to its kingdom sees ${JSON.stringify(want).slice(0, 300)}`,
            );
          }
        },
      ),
      { numRuns: RUNS, seed: Number(process.env.GCB_FOG_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
  }
  t.ok(checked >= RUNS * 3, `${checked} reads checked`);
  t.ok(withForeignActors > 0, `${withForeignActors} get_tile reads of tiles with actors on them`);

  // The unfiltered ones still answer, as decisions §4 says, and a god still sees every kingdom.
  t.equal((await as('athena', 'list_kingdoms')).body.result.count, kingdoms.filter((k) => !(k as { wild?: boolean }).wild).length);
  const [x, y] = positions.find(([x, y]) => [...kingdomsOnTiles.get(`${x},${y}`)!].some((k) => k !== claims.get('athena')))!;
  t.ok(
    (await as('zeus', 'get_tile', { x, y })).body.result.actors.some((a: Row) => a.kingdom_id !== claims.get('athena')),
    'a god sees them all',
  );
});
