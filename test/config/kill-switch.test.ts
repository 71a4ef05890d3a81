import { renameSync, writeFileSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import pino from 'pino';
import { watchKillSwitch } from '../../src/config/kill-switch.ts';
import { tempDir } from '../helpers/bridge.ts';
import { captureLog } from '../helpers/log.ts';

const TOKEN = 'B'.repeat(48);
const good = (enabled: boolean) => `enabled = ${enabled}\n[Bridge]\ntoken = "${TOKEN}"\n`;

function setup(t: Tap.Test) {
  const dir = tempDir();
  const path = join(dir, 'bridge.toml');
  writeFileSync(path, good(true));
  const { log, lines } = captureLog<Record<string, unknown>>();
  const changes: boolean[] = [];
  const ks = watchKillSwitch({ path, initial: true, intervalMs: 60_000, log, onChange: (v) => changes.push(v) });
  t.teardown(() => ks.stop());
  return { dir, path, ks, lines, changes, warnings: () => lines.filter((l) => l.level === 40) };
}

declare namespace Tap {
  type Test = import('tap').Test;
}

t.test('false disables, true enables again, no restart', async (t) => {
  const s = setup(t);
  await s.ks.reload();
  t.equal(s.ks.enabled, true);
  writeFileSync(s.path, good(false));
  await s.ks.reload();
  t.equal(s.ks.enabled, false);
  writeFileSync(s.path, good(true));
  await s.ks.reload();
  t.equal(s.ks.enabled, true);
  t.same(s.changes, [false, true]);
});

t.test('broken, truncated, empty and missing files keep the last good value with one warning each', async (t) => {
  const s = setup(t);
  writeFileSync(s.path, good(false));
  await s.ks.reload();
  t.equal(s.ks.enabled, false);
  const broken = ['enabled = tru\n', 'enabled = false\n[Bridge]\ntoken = "BBB', '', 'enabled = "no"\n'];
  for (const text of broken) {
    writeFileSync(s.path, text);
    await s.ks.reload();
    await s.ks.reload(); // the same broken content is not warned about twice
    t.equal(s.ks.enabled, false, `kept false after ${JSON.stringify(text)}`);
  }
  t.equal(s.warnings().length, broken.length, 'one warning per change');
  renameSync(s.path, `${s.path}.gone`);
  await s.ks.reload();
  t.equal(s.ks.enabled, false, 'a missing file keeps the value too');
  t.equal(s.warnings().length, broken.length + 1);
  for (const line of s.lines) t.notMatch(JSON.stringify(line), TOKEN, 'no warning carries the token');
});

t.test('an editor that saves by rename is followed', async (t) => {
  const s = setup(t);
  const temp = join(s.dir, 'bridge.toml.swp');
  writeFileSync(temp, good(false));
  renameSync(temp, s.path);
  await s.ks.reload();
  t.equal(s.ks.enabled, false);
});

t.test('the timer re-reads on its own', async (t) => {
  const dir = tempDir();
  const path = join(dir, 'bridge.toml');
  writeFileSync(path, good(true));
  const ks = watchKillSwitch({ path, initial: true, intervalMs: 50, log: pino({ enabled: false }), onChange: () => {} });
  t.teardown(() => ks.stop());
  writeFileSync(path, good(false));
  const until = Date.now() + 5000; // room for a loaded machine: the timer fires every 50 ms
  while (ks.enabled && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  t.equal(ks.enabled, false);
});

t.test('what the log says: each flip, and why a file is not used (the last good value named)', async (t) => {
  const s = setup(t);
  writeFileSync(s.path, good(false));
  await s.ks.reload();
  const infos = s.lines.filter((l) => l.level === 30);
  t.same(
    infos.map((l) => [l.msg, l.enabled]),
    [['kill switch: enabled = false', false]],
  );
  writeFileSync(s.path, 'enabled = tru\n');
  await s.ks.reload();
  t.match(s.warnings()[0], { enabled: false, config: s.path, msg: new RegExp(`^kill switch: ${s.path}: not valid TOML .*; keeping enabled = false$`) });
  renameSync(s.path, `${s.path}.gone`);
  await s.ks.reload();
  t.equal(s.warnings()[1]!.msg, `kill switch: cannot read ${s.path} (ENOENT); keeping enabled = false`);
  writeFileSync(s.path, good(false));
  await s.ks.reload();
  t.same(s.changes, [false], 'the same value back after a broken file is no change');
  t.equal(s.lines.filter((l) => l.level === 30).length, 1);
});

t.test('reloads asked for at once read the file once', async (t) => {
  const s = setup(t);
  writeFileSync(s.path, good(false));
  // Counted through the builtin's exports, which the module's named import follows.
  const readFile = fsPromises.readFile;
  let reads = 0;
  fsPromises.readFile = ((...args: Parameters<typeof readFile>) => {
    // This file's reads only: other code in the process (a bridge of another test) reads files too.
    if (String(args[0]) === s.path) reads++;
    return readFile(...args);
  }) as typeof readFile;
  syncBuiltinESMExports();
  try {
    await Promise.all([s.ks.reload(), s.ks.reload(), s.ks.reload()]);
  } finally {
    fsPromises.readFile = readFile;
    syncBuiltinESMExports();
  }
  t.equal(reads, 1, 'one read while one runs');
  t.same(s.changes, [false]);
  writeFileSync(s.path, good(true));
  await s.ks.reload();
  t.same(s.changes, [false, true], 'and the next reload still reads');
});

t.test('stopped, the timer reads no more', async (t) => {
  const dir = tempDir();
  const path = join(dir, 'bridge.toml');
  writeFileSync(path, good(true));
  const ks = watchKillSwitch({ path, initial: true, intervalMs: 20, log: pino({ enabled: false }), onChange: () => {} });
  ks.stop();
  writeFileSync(path, good(false));
  await new Promise((r) => setTimeout(r, 150));
  t.equal(ks.enabled, true);
});
