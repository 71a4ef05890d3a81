// An unknown command name gets did_you_mean (enabled names only, nearest first, inside `error`
// beside `code`, only for names of at most 64 characters); a disabled one says why instead; and
// /capabilities lists the disabled commands with what they miss. Run on the example game, which
// enables get_tile and disables paint_tile.
import t from 'tap';
import { startTestBridge } from '../helpers/bridge.ts';
import { treeModule } from '../helpers/paths.ts';

const b = await startTestBridge(t, { game: treeModule('examples/node-game/game.ts') });
const caps = (await (await b.fetch('/capabilities')).json()) as {
  commands: Array<{ name: string }>;
  disabled_commands: Array<{ name: string; missing: string[]; reason: string }>;
};
const enabled = caps.commands.map((c) => c.name);

t.test('get_tiel: 404 UNKNOWN_COMMAND with did_you_mean, get_tile first', async (t) => {
  const { status, body } = await b.cmd('get_tiel', { x: 1, y: 1 });
  t.equal(status, 404);
  t.match(body.error, { code: 'UNKNOWN_COMMAND', message: /unknown command 'get_tiel'/, command: 'get_tiel', args: { x: 1, y: 1 } });
  t.equal(body.error.did_you_mean[0], 'get_tile');
  t.ok(body.error.did_you_mean.length <= 5, 'at most 5');
  t.same(Object.keys(body.error).slice(0, 2), ['code', 'message'], 'inside error, beside code');
});

t.test('only enabled commands are suggested', async (t) => {
  const { body } = await b.cmd('paint_tiles');
  t.notOk(enabled.includes('paint_tile'), 'paint_tile is disabled in this game');
  t.notOk(body.error.did_you_mean.includes('paint_tile'), 'so it is not suggested');
  for (const name of body.error.did_you_mean) t.ok(enabled.includes(name), `${name} is enabled`);
});

t.test('a disabled command says why, without suggestions', async (t) => {
  const { status, body } = await b.cmd('paint_tile', { x: 1, y: 1, tile_id: 'grass' });
  t.equal(status, 404);
  t.match(body.error, { code: 'UNKNOWN_COMMAND', message: /'paint_tile' is disabled: the game module does not export paintTile, listTiles, listTopTiles/ });
  t.notOk('did_you_mean' in body.error);
});

t.test('names longer than 64 characters get no suggestions', async (t) => {
  const at64 = await b.cmd(`get_tile${'x'.repeat(56)}`);
  t.ok(Array.isArray(at64.body.error.did_you_mean), '64 characters: suggestions');
  const over = await b.cmd(`get_tile${'x'.repeat(57)}`);
  t.equal(over.status, 404);
  t.notOk('did_you_mean' in over.body.error, '65 characters: none');
});

t.test('/capabilities lists the disabled commands, each with what it misses', async (t) => {
  const disabled = caps.disabled_commands.map((d) => d.name);
  t.ok(disabled.length > 0);
  t.same(
    disabled.filter((name) => enabled.includes(name)),
    [],
    'no command is both',
  );
  t.notOk(
    caps.disabled_commands.some((d) => d.name === 'get_ui_state'),
    'get_ui_state is on (the game exports getUiState)',
  );
  t.same(
    caps.disabled_commands.find((d) => d.name === 'screenshot'),
    {
      name: 'screenshot',
      missing: ['snapshotWorld', 'renderSnapshot'],
      reason: "command 'screenshot' is disabled: the game module does not export snapshotWorld, renderSnapshot",
    },
  );
});
