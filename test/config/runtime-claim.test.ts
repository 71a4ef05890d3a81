// The bridge claims its config dir with bridge.runtime.json (claimRuntime). Unit tests in
// this process (fast: `npm run mutate -- config` runs them once a mutant); test/cli/runtime-file.test.ts
// covers the same over real bridge processes.
import { spawnSync } from 'node:child_process';
import fs, { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import t from 'tap';
import { ConfigError } from '../../src/config/load.ts';
import { claimRuntime } from '../../src/config/runtime-file.ts';
import { heldRuntimeFiles, readRuntime, runtimePath } from '../../src/shared/runtime-file.ts';
import { tempDir } from '../helpers/bridge.ts';
import { canListOpenFiles, openFilesUnder } from '../helpers/open-files.ts';

const read = (dir: string) => JSON.parse(readFileSync(runtimePath(dir), 'utf8')) as Record<string, unknown>;

t.test('claimed at start (0600, no URL yet), named once listening, removed on release', async (t) => {
  const dir = tempDir();
  const claim = claimRuntime(dir, '9.9.9');
  const path = runtimePath(dir);
  t.ok(heldRuntimeFiles.has(path));
  t.equal(statSync(path).mode & 0o777, 0o600);
  const starting = read(dir);
  t.equal(starting.pid, process.pid);
  t.equal(starting.mod_version, '9.9.9');
  t.equal(starting.url, undefined);
  t.match(starting.started_at, /^\d{4}-\d\d-\d\dT/);
  t.match(readFileSync(path, 'utf8'), /^\{\n {2}"pid"/, 'indented JSON');
  t.match(readFileSync(path, 'utf8'), /\}\n$/, 'ends with a newline');

  claim.listening('http://127.0.0.1:4567', 4567);
  t.same(read(dir), { ...starting, url: 'http://127.0.0.1:4567', port: 4567 });
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.equal(readRuntime(dir)?.url, 'http://127.0.0.1:4567', 'a client finds it');
  claim.listening('http://127.0.0.1:4568', 4568);
  t.equal(read(dir).port, 4568, 'named again (a leftover temp file is no obstacle)');

  claim.release();
  t.notOk(existsSync(path));
  t.notOk(heldRuntimeFiles.has(path));
  claim.release(); // twice is harmless
});

t.test('a second bridge in the same dir is refused, naming the first one', async (t) => {
  const dir = tempDir();
  const first = claimRuntime(dir, '1');
  t.teardown(() => first.release());
  t.throws(() => claimRuntime(dir, '1'), ConfigError);
  try {
    claimRuntime(dir, '1');
  } catch (err) {
    t.equal(
      (err as Error).message,
      `another bridge (pid ${process.pid}) is already running with this config dir at (still starting); stop it first, or give this one another --config-dir`,
    );
  }
  first.listening('http://127.0.0.1:4000', 4000);
  t.throws(() => claimRuntime(dir, '1'), /already running with this config dir at http:\/\/127\.0\.0\.1:4000;/);
});

t.test('a file left by a dead bridge is replaced', async (t) => {
  const dir = tempDir();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadPid = Number(dead.stdout);
  writeFileSync(runtimePath(dir), JSON.stringify({ pid: deadPid, mod_version: '0', started_at: 'x', url: 'http://127.0.0.1:1' }));
  const claim = claimRuntime(dir, '2');
  t.teardown(() => claim.release());
  t.equal(read(dir).pid, process.pid);
  t.equal(read(dir).mod_version, '2');
});

t.test('release leaves a file another bridge wrote since', async (t) => {
  const dir = tempDir();
  const claim = claimRuntime(dir, '3');
  const other = { pid: process.pid + 1_000_000, mod_version: 'other', started_at: 'x' };
  writeFileSync(runtimePath(dir), JSON.stringify(other));
  claim.release();
  t.same(read(dir), other, 'not ours: left in place');
});

t.test('an error other than "exists" is not taken for a running bridge', async (t) => {
  t.throws(() => claimRuntime(`${tempDir()}/missing/dir`, '4'), { code: 'ENOENT' });
});

t.test('a file that comes back after the stale one was removed (a bridge starting at the same moment) is not removed again', async (t) => {
  const dir = tempDir();
  const path = runtimePath(dir);
  const dead = { pid: deadPid(), mod_version: '0', started_at: 'x' };
  writeFileSync(path, JSON.stringify(dead));
  // The other bridge writes its file between our unlink and our second exclusive create, once.
  const unlink = fs.unlinkSync;
  let raced = false;
  fs.unlinkSync = (target) => {
    unlink(target);
    if (target === path && !raced) {
      raced = true;
      writeFileSync(path, JSON.stringify(dead));
    }
  };
  syncBuiltinESMExports();
  try {
    t.throws(() => claimRuntime(dir, '5'), { code: 'EEXIST' });
  } finally {
    fs.unlinkSync = unlink;
    syncBuiltinESMExports();
  }
  t.ok(raced);
  t.same(read(dir), dead, "the other bridge's file is left in place");
  t.notOk(heldRuntimeFiles.has(path));
});

t.test('a temp file left by an earlier run of this pid is replaced when the URL is named', async (t) => {
  const dir = tempDir();
  const claim = claimRuntime(dir, '6');
  t.teardown(() => claim.release());
  const temp = `${runtimePath(dir)}.${process.pid}.tmp`;
  writeFileSync(temp, 'half a file');
  claim.listening('http://127.0.0.1:4100', 4100);
  t.equal(read(dir).port, 4100);
  t.notOk(existsSync(temp));
});

t.test('an old claim released again leaves the claim made after it', async (t) => {
  const dir = tempDir();
  const old = claimRuntime(dir, 'old');
  old.release();
  const claim = claimRuntime(dir, 'new');
  t.teardown(() => claim.release());
  old.release();
  t.equal(read(dir).mod_version, 'new', 'the new claim keeps its file');
  t.ok(heldRuntimeFiles.has(runtimePath(dir)), 'and its place among the files held');
});

t.test('claiming and naming the URL leave no file descriptor open', { skip: !canListOpenFiles && 'lists open files on Linux only' }, async (t) => {
  const dir = tempDir();
  const claim = claimRuntime(dir, '7');
  t.teardown(() => claim.release());
  claim.listening('http://127.0.0.1:4200', 4200);
  t.same(openFilesUnder(dir), []);
});

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

t.test('a config dir this user may not write in is refused with that error, not taken for a stale file', async (t) => {
  const dir = tempDir();
  const path = runtimePath(dir);
  // As root (CI) a chmod would not stop the write: the refusal is made by hand, as open(2) gives it.
  const open = fs.openSync;
  fs.openSync = ((target: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode) => {
    if (target === path) throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
    return open(target, flags, mode);
  }) as typeof fs.openSync;
  syncBuiltinESMExports();
  try {
    t.throws(() => claimRuntime(dir, '8'), { code: 'EACCES' });
  } finally {
    fs.openSync = open;
    syncBuiltinESMExports();
  }
});
