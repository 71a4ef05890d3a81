// control: set_speed, generate_world, save_world, load_world over HTTP on the sandbox: the
// save → load round trip, and saves confined to saves/ (symlinks out of it are refused, nothing
// outside is written).
import t from 'tap';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/bridge.ts';
import { fails, ok, startSandbox } from './helpers.ts';

t.test('set_speed', async (t) => {
  const b = await startSandbox(t);
  t.same(await ok(t, b, 'set_speed', { speed_id: 'x5' }), { speed_id: 'x5', multiplier: 5, previous: 'x1' });
  t.equal((await ok(t, b, 'list_speeds')).current, 'x5');
  t.same(await ok(t, b, 'set_speed', { speed_id: 'slow_mo' }), { speed_id: 'slow_mo', multiplier: 0.5, previous: 'x5' });
  const unknown = await fails(t, b, 'set_speed', { speed_id: 'x7' }, 400, 'UNKNOWN_ASSET');
  t.ok(unknown.did_you_mean.length >= 1 && unknown.did_you_mean.length <= 5);
  t.ok(unknown.did_you_mean.every((id: string) => /^x\d+$|^slow_mo$/.test(id)));
  t.equal((await ok(t, b, 'list_speeds')).current, 'slow_mo', 'a refused speed changes nothing');
  await fails(t, b, 'set_speed', {}, 400, 'BAD_ARGS');
  await fails(t, b, 'set_speed', { speed_id: 5 }, 400, 'BAD_ARGS');
});

t.test('generate_world, save_world, load_world', async (t) => {
  const b = await startSandbox(t);
  const savesDir = join(b.configDir, 'saves');
  await ok(t, b, 'pause'); // the ui (pause) outlives world swaps, so worlds stay comparable

  await t.test('generate_world', async (t) => {
    t.same(await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 3, seed: 42 }), { width: 128, height: 192, seed: 42 });
    t.match(await ok(t, b, 'get_world_state'), { width: 128, height: 192, seed: 42 }, 'the new world is live when the answer comes');
    await fails(t, b, 'get_tile', { x: 130, y: 0 }, 400, 'OUT_OF_BOUNDS');
    const picture = (await ok(t, b, 'screenshot', { format: 'png', max_dimension: 0 })).base64;
    await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 3, seed: 43 });
    await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 3, seed: 42 });
    t.equal((await ok(t, b, 'screenshot', { format: 'png', max_dimension: 0 })).base64, picture, 'same seed and size, same world');

    const random1 = await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2 });
    const random2 = await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2 });
    t.ok(Number.isInteger(random1.seed) && random1.seed >= 0 && random1.seed < 2 ** 31, 'without a seed a random one is picked');
    t.not(random1.seed, random2.seed);
    t.equal((await ok(t, b, 'get_world_state')).seed, random2.seed, 'and reported');

    for (const args of [
      { zone_x: 1, zone_y: 2 },
      { zone_x: 2, zone_y: 17 },
      { zone_x: 2 },
      { zone_x: 2, zone_y: 2, seed: -1 },
      { zone_x: 2, zone_y: 2, seed: 1.5 },
      { zone_x: 2, zone_y: 2, size: 3 },
    ]) {
      await fails(t, b, 'generate_world', args, 400, 'BAD_ARGS');
    }
  });

  await t.test('save → load round trip, by path and by bytes', async (t) => {
    await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2, seed: 7 });
    await ok(t, b, 'paint_tile', { x: 3, y: 3, tile_id: 'lava' });
    const state = await ok(t, b, 'get_world_state');
    const saved = await ok(t, b, 'save_world', { folder: 'round-trip' });
    const file = join(savesDir, 'round-trip', 'world.sav');
    // decisions §11: answers name saves relative to the config dir, never by an absolute path.
    t.match(saved, { saved: true, folder: 'round-trip', path: 'saves/round-trip/world.sav', compressed: true });
    t.equal(statSync(file).size, saved.bytes);
    t.same(readdirSync(join(savesDir, 'round-trip')), ['world.sav'], 'no temp file is left behind');
    t.equal(readFileSync(file).subarray(0, 4).toString(), 'GCBW');

    await ok(t, b, 'generate_world', { zone_x: 3, zone_y: 2, seed: 8 });
    const loaded = await ok(t, b, 'load_world', { path: 'round-trip' });
    t.match(loaded, { scheduled: true, source: 'path', path: 'saves/round-trip/world.sav', bytes: saved.bytes, width: 128, height: 128, seed: 7 });
    t.same(await ok(t, b, 'get_world_state'), state, 'the saved world is back, as it was');
    t.equal((await ok(t, b, 'get_tile', { x: 3, y: 3 })).tile_id, 'lava');
    t.equal((await ok(t, b, 'get_ui_state')).world_loading, false, 'a command sent after the answer runs after the swap: world_loading is over');

    const raw = await ok(t, b, 'save_world', { folder: 'round-trip', compress: false });
    t.match(raw, { compressed: false });
    t.ok(raw.bytes > saved.bytes, 'uncompressed is larger');
    t.same(readdirSync(join(savesDir, 'round-trip')), ['world.sav'], 'saving again replaces the file');
    await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2, seed: 9 });
    const viaAbsolute = await ok(t, b, 'load_world', { path: file });
    t.match(viaAbsolute, { source: 'path', seed: 7 }, 'an absolute path inside saves/ is fine');
    t.match(await ok(t, b, 'load_world', { path: 'round-trip/world.sav' }), { source: 'path', seed: 7 }, 'so is <name>/world.sav');

    await ok(t, b, 'generate_world', { zone_x: 2, zone_y: 2, seed: 9 });
    const bytes = readFileSync(file);
    const viaBytes = await ok(t, b, 'load_world', { bytes_b64: bytes.toString('base64'), path: 'no-such-save' });
    t.match(viaBytes, { scheduled: true, source: 'bytes_b64', path: null, bytes: bytes.length, seed: 7 }, 'bytes_b64 wins over path');
    t.same(await ok(t, b, 'get_world_state'), state);
  });

  await t.test('save and load arguments', async (t) => {
    for (const folder of ['', '../evil', '.hidden', 'a/b', 'a\\b', 'x'.repeat(65), 'nul\u0000byte', '-dash']) {
      await fails(t, b, 'save_world', { folder }, 400, 'BAD_ARGS');
    }
    await fails(t, b, 'save_world', {}, 400, 'BAD_ARGS');
    await fails(t, b, 'save_world', { folder: 'ok', compress: 'no' }, 400, 'BAD_ARGS');
    t.notOk(existsSync(join(b.configDir, 'evil')), 'nothing written outside saves/');

    const cases: Array<[unknown, RegExp]> = [
      [{}, /path|bytes_b64/],
      [{ path: '' }, /empty/],
      [{ path: 'no-such-save' }, /does not resolve|no save/],
      [{ path: '../bridge.toml' }, /\.\./],
      [{ path: 'round-trip/../round-trip' }, /\.\./],
      [{ path: '/etc/passwd' }, /outside saves/],
      [{ path: join(b.configDir, 'bridge.toml') }, /outside saves/],
      [{ path: 'round\u0000trip' }, /NUL/],
      [{ path: '.' }, /saves\/ itself|no save/],
      [{ bytes_b64: '***' }, /base64/],
      [{ bytes_b64: Buffer.from('hello, not a save').toString('base64') }, /not a save/],
    ];
    for (const [args, message] of cases) {
      const error = await fails(t, b, 'load_world', args, 400, 'BAD_ARGS');
      t.match(error.message, message);
    }
    mkdirSync(join(savesDir, 'empty-folder'));
    await fails(t, b, 'load_world', { path: 'empty-folder' }, 400, 'BAD_ARGS');
    t.equal((await ok(t, b, 'get_ui_state')).world_loading, false, 'a refused load leaves no loading flag behind');
    t.equal((await ok(t, b, 'get_world_state')).seed, 7, 'and the world as it was');
  });

  await t.test('symlinks out of saves/ are refused; nothing outside is written', async (t) => {
    const outside = tempDir('gcb-outside-');
    // A valid save outside saves/, reachable through links that a load must not follow.
    writeFileSync(join(outside, 'world.sav'), readFileSync(join(savesDir, 'round-trip', 'world.sav')));
    symlinkSync(outside, join(savesDir, 'escape'));
    mkdirSync(join(savesDir, 'linked-file'));
    symlinkSync(join(outside, 'world.sav'), join(savesDir, 'linked-file', 'world.sav'));

    for (const path of ['escape', 'escape/world.sav', join(savesDir, 'escape'), 'linked-file']) {
      const error = await fails(t, b, 'load_world', { path }, 400, 'BAD_ARGS');
      t.match(error.message, /outside saves/);
    }
    const before = readFileSync(join(outside, 'world.sav'));
    const refused = await fails(t, b, 'save_world', { folder: 'escape' }, 400, 'BAD_ARGS');
    t.match(refused.message, /outside saves/);
    t.same(readdirSync(outside), ['world.sav'], 'no file was written through the link');
    t.ok(readFileSync(join(outside, 'world.sav')).equals(before));

    // A world.sav that is itself a link is replaced by the save, never written through.
    await ok(t, b, 'save_world', { folder: 'linked-file' });
    t.ok(lstatSync(join(savesDir, 'linked-file', 'world.sav')).isFile(), 'the link is replaced by a file');
    t.ok(readFileSync(join(outside, 'world.sav')).equals(before), 'the file outside is untouched');
    t.same(readdirSync(outside), ['world.sav']);
    t.match(await ok(t, b, 'load_world', { path: 'linked-file' }), { source: 'path' });
  });
});
