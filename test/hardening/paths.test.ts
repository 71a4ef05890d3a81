// Paths (decisions §3): `..`, absolute paths outside saves/, URL-encoded dots, NUL bytes, symlinks
// pointing out, symlink loops and very long names, as load_world's `path` and save_world's `folder`:
// each one 400 BAD_ARGS, and nothing outside saves/ is read or written. A valid save of another
// world waits outside saves/ at every place an escape would reach: had one been read, the live
// world would have changed to it.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { startSandbox } from '../commands/helpers.ts';
import { tempDir } from '../helpers/bridge.ts';
import { envelopeProblems } from './envelope.ts';
import type { Reply } from './helpers.ts';

t.setTimeout(120_000);

/** Every file and link under `root` (saves/ excluded) with a hash of its content: what "untouched" means. */
function tree(root: string, skip: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (path === skip) continue;
      const key = relative(root, path);
      if (entry.isSymbolicLink()) out[key] = `link`;
      else if (entry.isDirectory()) walk(path);
      else out[key] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(root);
  return out;
}

t.test('paths', async (t) => {
  const b = await startSandbox(t);
  const saves = join(b.configDir, 'saves');
  const cmd = async (name: string, args: unknown): Promise<Reply> => {
    const reply = await b.cmd(name, args);
    return { status: reply.status, headers: reply.headers, body: reply.body, text: JSON.stringify(reply.body) };
  };

  // A save of another world (seed 777) is the bait outside saves/; the live world is seed 4242.
  t.equal((await cmd('generate_world', { zone_x: 2, zone_y: 2, seed: 777 })).status, 200);
  t.equal((await cmd('save_world', { folder: 'bait' })).status, 200);
  const bait = readFileSync(join(saves, 'bait', 'world.sav'));
  rmSync(join(saves, 'bait'), { recursive: true });
  t.equal((await cmd('generate_world', { zone_x: 2, zone_y: 2, seed: 4242 })).status, 200);
  t.equal((await cmd('save_world', { folder: 'real' })).status, 200);

  const outside = tempDir('gcb-outside-');
  const beside = join(b.configDir, 'outside');
  for (const dir of [outside, beside, join(b.configDir, 'saves-evil')]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'world.sav'), bait);
  }
  writeFileSync(join(b.configDir, 'world.sav'), bait);
  // Links inside saves/ that point out, and links that go nowhere or in circles.
  symlinkSync(outside, join(saves, 'link-out'));
  symlinkSync(join(outside, 'world.sav'), join(saves, 'link-file'));
  mkdirSync(join(saves, 'inner-link'));
  symlinkSync(join(beside, 'world.sav'), join(saves, 'inner-link', 'world.sav'));
  symlinkSync(join(saves, 'link-out'), join(saves, 'link-chain'));
  symlinkSync('/', join(saves, 'link-root'));
  symlinkSync(join(saves, 'loop-b'), join(saves, 'loop-a'));
  symlinkSync(join(saves, 'loop-a'), join(saves, 'loop-b'));
  symlinkSync(join(saves, 'self'), join(saves, 'self'));
  mkdirSync(join(saves, 'loop-file'));
  symlinkSync(join(saves, 'loop-file', 'world.sav'), join(saves, 'loop-file', 'world.sav'));
  symlinkSync(join(outside, 'nothing-here'), join(saves, 'dangling'));
  writeFileSync(join(saves, 'plain-file'), 'not a folder');

  const before = { config: tree(b.configDir, saves), outside: tree(outside, null) };
  const problems: string[] = [];
  const expectBadArgs = async (name: string, args: Record<string, unknown>) => {
    const reply = await cmd(name, args);
    const code = reply.body?.error?.code;
    const shown = JSON.stringify(args).slice(0, 100);
    if (reply.status !== 400 || code !== 'BAD_ARGS')
      problems.push(`${name} ${shown} → ${reply.status} ${code}: ${String(reply.body?.error?.message).slice(0, 160)}`);
    for (const problem of envelopeProblems(reply, { command: name, args })) problems.push(`${name} ${shown}: ${problem}`);
  };

  await t.test('load_world: every escape is 400 BAD_ARGS', async (t) => {
    const paths = [
      '..',
      '../outside',
      '../outside/world.sav',
      '../world.sav',
      '../../../../../../etc/passwd',
      'real/../../outside',
      'real/../real',
      './../outside',
      '..\\outside',
      join(outside, 'world.sav'),
      outside,
      join(b.configDir, 'world.sav'),
      join(b.configDir, 'saves-evil'),
      join(b.configDir, 'saves-evil', 'world.sav'),
      `${saves}/../outside`,
      `${saves}/real/../../outside/world.sav`,
      '/etc/passwd',
      '/',
      '%2e%2e',
      '%2e%2e/outside',
      '%2e%2e%2foutside%2fworld.sav',
      '..%2foutside',
      '.%2e/outside',
      '%252e%252e%252foutside',
      '\u2025/outside',
      '\uff0e\uff0e/outside',
      'real\u0000',
      '\u0000',
      'real\u0000/../../outside',
      `${saves}/real\u0000`,
      '~/outside',
      'file:///etc/passwd',
      'link-out',
      'link-out/world.sav',
      'link-file',
      'inner-link',
      'inner-link/world.sav',
      'link-chain',
      'link-root/etc/passwd',
      join(saves, 'link-out'),
      'loop-a',
      'self',
      'loop-file',
      'dangling',
      'plain-file',
      '.',
      '',
      ' ',
      'a'.repeat(65),
      'a'.repeat(256),
      'a'.repeat(5000),
      `${'a/'.repeat(3000)}world.sav`,
      `real/${'b'.repeat(300)}`,
    ];
    for (const path of paths) await expectBadArgs('load_world', { path });
    t.same(problems.splice(0), [], `${paths.length} load_world paths, every one 400 BAD_ARGS in a valid envelope`);
  });

  await t.test('save_world: every escape is 400 BAD_ARGS', async (t) => {
    const folders = [
      '..',
      '.',
      '../outside',
      '%2e%2e',
      '%2e%2e%2foutside',
      '/abs',
      outside,
      'a/b',
      'nul\u0000',
      '.hidden',
      '-dash',
      'a'.repeat(65),
      'a'.repeat(5000),
      'link-out',
      'link-chain',
      'link-root',
      'loop-a',
      'self',
      'dangling',
      'plain-file',
      '',
    ];
    for (const folder of folders) await expectBadArgs('save_world', { folder });
    t.same(problems.splice(0), [], `${folders.length} save_world folders, every one 400 BAD_ARGS in a valid envelope`);
  });

  await t.test('nothing outside saves/ was read or written', async (t) => {
    const world = await cmd('get_world_state', {});
    t.equal(world.body.result.seed, 4242, 'the live world is still the one generated: no bait was loaded');
    t.same(tree(b.configDir, saves), before.config, 'the config dir outside saves/ is unchanged');
    t.same(tree(outside, null), before.outside, 'the folder the links point to is unchanged');
    t.ok(lstatSync(join(saves, 'link-out')).isSymbolicLink(), 'the links are still links');
    t.equal((await cmd('load_world', { path: 'real' })).status, 200, 'a real save still loads');
    t.equal(b.bridge.stats().slotsInUse, 0);
  });

  await t.test('a world.sav replaced by a link after the check: the link is replaced on save, never written through', async (t) => {
    mkdirSync(join(saves, 'swapped'));
    symlinkSync(join(outside, 'world.sav'), join(saves, 'swapped', 'world.sav'));
    t.equal((await cmd('save_world', { folder: 'swapped' })).status, 200);
    t.ok(lstatSync(join(saves, 'swapped', 'world.sav')).isFile());
    t.same(tree(outside, null), before.outside, 'the file outside is unchanged');
    // and a folder renamed to a link between two saves is refused the second time
    renameSync(join(saves, 'swapped'), join(saves, 'swapped-old'));
    symlinkSync(outside, join(saves, 'swapped'));
    const second = await cmd('save_world', { folder: 'swapped' });
    t.equal(second.status, 400);
    t.same(tree(outside, null), before.outside);
  });
});
