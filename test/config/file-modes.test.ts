// decisions §11: config files the group or others can read are one warning line at start, naming
// each file and its mode. Unit tests (fast: `npm run mutate -- config` runs them once a mutant).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readableByOthers, warnReadableConfig } from '../../src/config/file-modes.ts';
import { tempDir } from '../helpers/bridge.ts';
import { captureLog } from '../helpers/log.ts';

function fileWithMode(dir: string, name: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, 'x');
  chmodSync(path, mode);
  return path;
}

const capture = () => captureLog<{ level: number; msg: string; files?: string[] }>();

t.test('readable by the group or by others is found, with its mode; owner-only and absent files are not', { skip: process.platform === 'win32' }, async (t) => {
  const dir = tempDir();
  const own = fileWithMode(dir, 'own', 0o600);
  const ownExec = fileWithMode(dir, 'own-exec', 0o700);
  const groupRead = fileWithMode(dir, 'group', 0o640);
  const otherRead = fileWithMode(dir, 'other', 0o604);
  const groupWriteOnly = fileWithMode(dir, 'gw', 0o620);
  const all = fileWithMode(dir, 'all', 0o644);
  const found = readableByOthers([own, ownExec, groupRead, otherRead, groupWriteOnly, all, join(dir, 'absent')]);
  t.same(found, [
    { file: groupRead, mode: '0640' },
    { file: otherRead, mode: '0604' },
    { file: all, mode: '0644' },
  ]);
});

t.test('one warning naming every such file; none when all are private', { skip: process.platform === 'win32' }, async (t) => {
  const dir = tempDir();
  const toml = fileWithMode(dir, 'bridge.toml', 0o644);
  const agents = fileWithMode(dir, 'agents.json', 0o640);
  const quiet = capture();
  warnReadableConfig([{ path: fileWithMode(dir, 'private', 0o600), holds: 'the bridge token' }], quiet.log);
  t.same(quiet.lines, [], 'private files: no warning');

  const one = capture();
  warnReadableConfig([{ path: toml, holds: 'the bridge token' }], one.log);
  t.equal(one.lines.length, 1);
  t.equal(one.lines[0]!.level, 40);
  t.equal(one.lines[0]!.msg, `bridge.toml (mode 0644, holding the bridge token) can be read by other users of this machine: chmod 600 ${toml}`);
  t.same(one.lines[0]!.files, [toml]);

  const two = capture();
  warnReadableConfig(
    [
      { path: toml, holds: 'the bridge token' },
      { path: agents, holds: 'token digests only, no token' },
    ],
    two.log,
  );
  t.equal(two.lines.length, 1, 'one line for both');
  t.equal(
    two.lines[0]!.msg,
    `bridge.toml (mode 0644, holding the bridge token) and agents.json (mode 0640, holding token digests only, no token) can be read by other users of this machine: chmod 600 ${toml} ${agents}`,
  );
  t.same(two.lines[0]!.files, [toml, agents]);
});

t.test('on Windows no file is reported: it has no POSIX modes to read', { skip: process.platform === 'win32' }, async (t) => {
  const all = fileWithMode(tempDir(), 'all', 0o644);
  t.same(readableByOthers([all], 'win32'), []);
  t.same(readableByOthers([all], 'linux'), [{ file: all, mode: '0644' }], 'the same file, elsewhere');
});
