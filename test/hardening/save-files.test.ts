// decisions §11 for saves: Windows device names and names ending in a dot or a space are 400
// BAD_ARGS; answers name no absolute path (save paths relative to the config dir, and that form is
// accepted back by load_world); saves/ and its folders are created 0700 and save files 0600, even
// under umask 000; before each save the temp files that dead processes left in its folder are
// removed (the startup sweep is tested over real processes in stale-temps.test.ts).
// bridge.toml and agents.json readable by group or others: one warning line at start.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, tempDir, writeConfig } from '../helpers/bridge.ts';

/** The pid of a process that has exited (what a kill -9 leaves behind in a temp file's name). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

t.test('save names, paths in answers, modes and stale temp files', async (t) => {
  const previousUmask = process.umask(0o000);
  t.teardown(() => void process.umask(previousUmask));
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const saves = join(b.configDir, 'saves');

  await t.test('Windows device names and names ending in a dot are refused', async (t) => {
    for (const folder of ['con', 'CON', 'Nul', 'prn', 'aux', 'com1', 'COM9', 'lpt1', 'LPT9', 'con.txt', 'nul.tar.gz', 'Aux.sav', 's1.', 'save..', 'a.b.']) {
      const reply = await b.cmd('save_world', { folder });
      t.equal(reply.status, 400, `${folder}: 400`);
      t.match(reply.body.error, { code: 'BAD_ARGS', message: /Windows device name|ends in a dot or a space/ }, `${folder}: says why`);
    }
    t.notOk(existsSync(saves), 'nothing was created');
    for (const folder of ['console', 'com10', 'lpt0', 'nul1', 'connect.v2', 's1.x']) {
      t.equal((await b.cmd('save_world', { folder })).status, 200, `${folder}: a fine name`);
    }
  });

  await t.test('answers name saves relative to the config dir; load_world takes that form back', async (t) => {
    const saved = await b.cmd('save_world', { folder: 'rel' });
    t.equal(saved.body.result.path, 'saves/rel/world.sav');
    for (const path of ['rel', 'rel/world.sav', 'saves/rel/world.sav', 'saves/rel', join(saves, 'rel')]) {
      const loaded = await b.cmd('load_world', { path });
      t.equal(loaded.status, 200, `load_world ${path.startsWith('/') ? '(absolute)' : path}`);
      t.equal(loaded.body.result.path, 'saves/rel/world.sav', 'answers the relative path');
    }
    // Refusals name no path of the machine either.
    const outside = tempDir('gcb-outside-');
    mkdirSync(join(outside, 'x'));
    symlinkSync(outside, join(saves, 'link-out'));
    const refusals = [
      await b.cmd('load_world', { path: 'link-out' }),
      await b.cmd('load_world', { path: 'missing' }),
      await b.cmd('load_world', { path: '/etc/passwd' }),
      await b.cmd('save_world', { folder: 'link-out' }),
    ];
    for (const reply of refusals) {
      t.equal(reply.status, 400, reply.body.error.message);
      t.notMatch(reply.body.error.message, b.configDir, 'no absolute path of the config dir');
      t.notMatch(reply.body.error.message, outside, 'nor of where a link points');
    }
  });

  await t.test('saves/ and its folders are 0700, save files 0600, under umask 000', async (t) => {
    t.equal(statSync(saves).mode & 0o777, 0o700, 'saves/');
    t.equal(statSync(join(saves, 'rel')).mode & 0o777, 0o700, 'saves/rel/');
    t.equal(statSync(join(saves, 'rel', 'world.sav')).mode & 0o777, 0o600, 'saves/rel/world.sav');
  });

  await t.test('before each save, temp files of dead processes in its folder are removed', async (t) => {
    const folder = join(saves, 'rel');
    const dead = `.world.sav.${deadPid()}.0123456789ab.tmp`;
    const live = `.world.sav.${process.ppid}.abcdefabcdef.tmp`; // a process that is running
    writeFileSync(join(folder, dead), 'half a save');
    writeFileSync(join(folder, live), 'a save in progress elsewhere');
    writeFileSync(join(folder, 'notes.txt'), 'not a temp file');
    t.equal((await b.cmd('save_world', { folder: 'rel' })).status, 200);
    t.same(readdirSync(folder).sort(), [live, 'notes.txt', 'world.sav'].sort(), "the dead process's temp file is gone, the rest stays");
  });
});

t.test('bridge.toml or agents.json readable by group or others: one warning line at start', async (t) => {
  const warnings = (b: { logs: Array<Record<string, unknown>> }) =>
    b.logs.filter((line) => line.level === 40 && /can be read by other users/.test(String(line.msg)));
  const dir = tempDir();
  writeConfig(dir);
  chmodSync(join(dir, 'bridge.toml'), 0o644);
  const loose = await startTestBridge(t, { configDir: dir });
  t.equal(warnings(loose).length, 1, 'one line');
  t.match(warnings(loose)[0]!.msg, /bridge\.toml \(mode 0644, holding the bridge token\) can be read by other users of this machine: chmod 600/);
  await loose.bridge.close();

  const token = (id: string) => `modes-${id}-ABCDEFGHJKLMNPQRSTUVWXYZ23456789`;
  writeFileSync(join(dir, 'agents.json'), JSON.stringify({ scenario: 'sandbox', agents: [{ id: 'zeus', token: token('zeus'), role: 'god' }] }));
  chmodSync(join(dir, 'agents.json'), 0o640);
  const both = await startTestBridge(t, { configDir: dir });
  t.equal(warnings(both).length, 1, 'still one line');
  t.match(warnings(both)[0]!.msg, /bridge\.toml \(mode 0644, holding the bridge token\) and agents\.json \(mode 0640, holding agent tokens\) can be read/);
  t.notMatch(both.logText(), token('zeus'), 'no token in the log');
  await both.bridge.close();

  // An agents.json of digests only holds no token: the warning says so.
  const digest = createHash('sha256').update(token('zeus')).digest('hex');
  writeFileSync(join(dir, 'agents.json'), JSON.stringify({ scenario: 'sandbox', agents: [{ id: 'zeus', token_sha256: digest, role: 'god' }] }));
  chmodSync(join(dir, 'agents.json'), 0o640);
  const digests = await startTestBridge(t, { configDir: dir });
  t.match(warnings(digests)[0]!.msg, /agents\.json \(mode 0640, holding token digests only, no token\) can be read/);
  await digests.bridge.close();

  chmodSync(join(dir, 'bridge.toml'), 0o600);
  chmodSync(join(dir, 'agents.json'), 0o600);
  const tight = await startTestBridge(t, { configDir: dir });
  t.equal(warnings(tight).length, 0, '0600: no warning');
});
