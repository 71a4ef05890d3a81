// spec rule 3, the game-type lookup: a game module without `spawn` disables spawn alone. The bridge
// logs one warning, leaves spawn out of /capabilities, answers it 404 UNKNOWN_COMMAND saying it is
// disabled and why, and every other command keeps working.
import t from 'tap';
import { COMMANDS } from '../../src/commands/index.ts';
import { fails, fixture, ok, startSandbox } from './helpers.ts';

t.test('a game without spawn', async (t) => {
  const b = await startSandbox(t, { game: fixture('sandbox-without-spawn.ts') });

  const warnings = b.logs.filter((line) => line.level === 40 && line.command === 'spawn');
  t.equal(warnings.length, 1, 'one warning');
  t.match(warnings[0]?.msg, /spawn.*disabled.*spawn/);
  t.equal(b.logs.filter((line) => line.level === 40 && typeof line.command === 'string').length, 1, 'about spawn only');

  const caps = (await (await b.fetch('/capabilities')).json()) as { commands: Array<{ name: string }> };
  const names = caps.commands.map((c) => c.name);
  t.notOk(names.includes('spawn'), 'spawn is left out of /capabilities');
  t.same(
    names,
    COMMANDS.map((c) => c.name).filter((name) => name !== 'spawn'),
    'every other command is there',
  );

  const error = await fails(t, b, 'spawn', { entity_id: 'human', x: 10, y: 10 }, 404, 'UNKNOWN_COMMAND');
  t.match(error.message, /disabled/);
  t.match(error.message, /does not export spawn/, 'the message says why');

  // The other commands keep working, the ones next to spawn included.
  t.ok((await ok(t, b, 'list_actors')).count > 0);
  t.match(await ok(t, b, 'paint_tile', { x: 10, y: 10, tile_id: 'grass' }), { painted: 1 });
  t.match(await ok(t, b, 'invoke_power', { power_id: 'spawn_human', x: 10, y: 10 }), { accepted: true });
  t.equal((await ok(t, b, 'get_tile', { x: 10, y: 10 })).tile_id, 'grass');
  t.equal((await ok(t, b, 'screenshot', { max_dimension: 32 })).width, 32);
});
