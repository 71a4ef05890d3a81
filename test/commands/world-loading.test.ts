// load_world's loading window: get_ui_state.world_loading is true from the parse to the swap frame,
// and save_world is refused (GAME_REJECTED) meanwhile. A sandbox whose decodeSave takes 1.5 s makes
// the window wide enough to watch without guessing.
import t from 'tap';
import { DECODE_MS } from '../fixtures/sandbox-slow-load.ts';
import { checkException, fails, fixture, ok, startSandbox } from './helpers.ts';

t.test('save_world is refused while a world loads', async (t) => {
  const b = await startSandbox(t, { game: fixture('sandbox-slow-load.ts') });
  await ok(t, b, 'pause');
  const saved = await ok(t, b, 'save_world', { folder: 'slow' });
  await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2, seed: 3 });

  const t0 = Date.now();
  let answered = false;
  const loading = b.cmd('load_world', { path: 'slow' }).finally(() => (answered = true));
  // The flag goes up once the file is read (the pool thread may first have to load the game
  // module) and stays up for the DECODE_MS of parsing, so polling cannot miss it.
  let ui = await ok(t, b, 'get_ui_state');
  while (!ui.world_loading && !answered && Date.now() - t0 < 30_000) ui = await ok(t, b, 'get_ui_state');
  t.equal(ui.world_loading, true, 'world_loading is true while the save is parsed');

  const refused = await fails(t, b, 'save_world', { folder: 'during-load' }, 422, 'GAME_REJECTED');
  checkException(t, refused);
  t.match(refused.message, /loading/);

  const loaded = await loading;
  t.equal(loaded.status, 200);
  t.match(loaded.body.result, { scheduled: true, source: 'path', bytes: saved.bytes, width: 256, height: 256 });
  t.ok(Date.now() - t0 >= DECODE_MS);
  t.equal((await ok(t, b, 'get_ui_state')).world_loading, false, 'the swap frame ends the loading window');
  t.equal((await ok(t, b, 'get_world_state')).width, 256);
  await ok(t, b, 'save_world', { folder: 'after-load' });
});
