// Save files live in `<savesDir>/<name>/world.sav` (decisions §3). Everything here runs on a pool
// thread. Paths are confined twice: lexically (no NUL, no `..`, absolute paths only inside saves/)
// and after resolving symlinks (realpath must stay inside the real saves/), so a link pointing out
// of saves/ is neither read nor written through. decisions §11: answers name no absolute path (save
// paths are shown relative to the config dir), saves/ and its folders are created 0700 and save
// files 0600, and the temp files of saves cut off by a kill are removed.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { badArgs } from '../../errors/bridge-error.ts';
import type { BridgeInfo } from '../../shared/protocol.ts';

export const SAVE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const SAVE_NAME = new RegExp(SAVE_NAME_PATTERN);
export const SAVE_FILE = 'world.sav';
/** A temp file of writeSave: `.world.sav.<pid>.<hex>.tmp`. */
const TEMP_FILE = /^\.world\.sav\.(\d+)\.[0-9a-f]+\.tmp$/;
/** decisions §11: names Windows keeps for devices, whatever the case and the extension (`NUL.tar.gz`). */
const DEVICE_NAME = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

/** Where saves live: saves/ itself, and the config dir that answers name saves relative to. */
export type SavesDirs = Pick<BridgeInfo, 'configDir' | 'savesDir'>;

/** decisions §11: a path as an answer shows it, relative to the config dir (`saves/s1/world.sav`). */
export function shownPath(dirs: SavesDirs, path: string): string {
  return relative(dirs.configDir, path) || '.';
}

export function checkSaveName(name: string): void {
  checkFileName('save', name);
}

/** A save or record name (decisions §11): portable, one path segment, never a device or a hidden file. */
export function checkFileName(what: 'save' | 'record', name: string): void {
  if (!SAVE_NAME.test(name)) {
    throw badArgs(`${what} name '${name}' is not valid: 1 to 64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit`);
  }
  // So saves stay portable: Windows cannot create these folders (or opens a device instead).
  if (DEVICE_NAME.test(name)) throw badArgs(`${what} name '${name}' is a Windows device name (con, prn, aux, nul, com1-9, lpt1-9): pick another`);
  if (name.endsWith('.') || name.endsWith(' ')) throw badArgs(`${what} name '${name}' ends in a dot or a space, which Windows drops: pick another`);
}

/** Is process `pid` running? (EPERM: it is, but another user's.) */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files of saves that never finished in `folder` (a kill -9 mid-save leaves one):
 * those of processes no longer running, and, with `ownToo` (at startup, before this process saves
 * anything), this process's own pid's too, since a container may reuse one pid on every start.
 * Returns how many went.
 */
export async function removeStaleTemps(folder: string, ownToo = false): Promise<number> {
  let removed = 0;
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const pid = TEMP_FILE.exec(name)?.[1];
    if (pid === undefined) continue;
    const owner = Number(pid);
    if ((owner === process.pid && !ownToo) || (owner !== process.pid && alive(owner))) continue;
    await unlink(join(folder, name)).then(
      () => removed++,
      () => {},
    );
  }
  return removed;
}

/** At startup: stale temp files in every save folder (links are not followed out of saves/). */
export async function sweepStaleTemps(savesDir: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(savesDir, { withFileTypes: true }).catch(() => [])) {
    if (entry.isDirectory()) removed += await removeStaleTemps(join(savesDir, entry.name), true);
  }
  return removed;
}

/** Is `child` `parent` itself or inside it? Both absolute and normalised. */
function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // ENAMETOOLONG and ELOOP: a path too long to name anything, or links that go round in a loop.
  // Neither resolves to a save: the caller's BAD_ARGS, not a GAME_CRASH.
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG' || code === 'ELOOP';
}

/**
 * Writes `bytes` as `<savesDir>/<name>/world.sav` atomically: a fresh temp file in the same
 * folder (O_EXCL, so nothing already there is followed), write, fsync, rename over the target,
 * fsync the folder. A reader sees the old file or the new one, never half of one. Returns the path.
 */
export async function writeSave(dirs: SavesDirs, name: string, bytes: Uint8Array): Promise<string> {
  const { savesDir } = dirs;
  checkSaveName(name);
  await mkdir(savesDir, { recursive: true, mode: 0o700 });
  const savesReal = await realpath(savesDir);
  const folder = join(savesReal, name);
  try {
    await lstat(folder);
  } catch (err) {
    if (!isMissing(err)) throw err;
    await mkdir(folder, { mode: 0o700 }).catch((mkdirErr: unknown) => {
      if ((mkdirErr as { code?: unknown }).code !== 'EEXIST') throw mkdirErr;
    });
  }
  let folderReal: string;
  try {
    folderReal = await realpath(folder);
  } catch (err) {
    if (isMissing(err)) throw badArgs(`save '${name}' is a link that resolves to nothing (missing, or a loop); saves are written inside saves/ only`);
    throw err;
  }
  if (!within(savesReal, folderReal) || folderReal === savesReal) {
    throw badArgs(`save '${name}' resolves outside saves/ (a link out of it); saves are written inside saves/ only`);
  }
  if (!(await stat(folderReal)).isDirectory()) throw badArgs(`save '${name}' exists in saves/ but is not a folder`);

  const target = join(folderReal, SAVE_FILE);
  await removeStaleTemps(folderReal);
  const temp = join(folderReal, `.${SAVE_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', 0o600);
  try {
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    // rename() replaces the directory entry itself: a symlink at world.sav is replaced, never followed.
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  const dir = await open(folderReal, 'r');
  try {
    await dir.sync(); // the rename itself is durable only once the folder is flushed
  } finally {
    await dir.close();
  }
  return shownPath(dirs, resolve(savesDir, name, SAVE_FILE));
}

/**
 * Resolves load_world's `path` to the real path of a save file inside saves/ (`file`, to read) and
 * the path an answer shows (`shown`, relative to the config dir), or throws BAD_ARGS: NUL bytes,
 * `..` segments, absolute paths outside saves/, paths that do not resolve, resolve outside saves/
 * (symlinks), or name no save. `path` is a save name (`<name>` or `<name>/world.sav`), the path
 * save_world answered (`saves/<name>/world.sav`, relative to the config dir), or an absolute path
 * inside saves/. Messages name paths relative to the config dir, never the machine's.
 */
export async function resolveSavePath(dirs: SavesDirs, path: string): Promise<{ file: string; shown: string }> {
  const { savesDir } = dirs;
  if (path.includes('\0')) throw badArgs('path contains a NUL byte');
  if (path.trim() === '') throw badArgs('path is empty: give a save name from saves/');
  if (path.split(/[\\/]/).includes('..')) throw badArgs(`path '${path}' contains '..': saves are read from inside saves/ only`);
  const base = resolve(savesDir);
  let savesReal: string;
  try {
    savesReal = await realpath(base);
  } catch (err) {
    if (isMissing(err)) throw badArgs(`path '${path}' names no save: there is no saves/ folder yet (save_world creates it)`);
    throw err;
  }
  if (isAbsolute(path) && !within(base, resolve(path)) && !within(savesReal, resolve(path))) {
    throw badArgs(`path '${path}' is outside saves/: give a save name, or a path inside ${shownPath(dirs, base)}/`);
  }
  let candidate = isAbsolute(path) ? resolve(path) : resolve(base, path);
  if (!isAbsolute(path)) {
    // The form answers show (relative to the config dir) is accepted back, unless it is a save name.
    const fromConfig = resolve(dirs.configDir, path);
    const exists = await lstat(candidate).then(
      () => true,
      () => false,
    );
    if (!exists && fromConfig !== base && within(base, fromConfig)) candidate = fromConfig;
  }

  const real = async (p: string, what: string): Promise<string> => {
    let resolved: string;
    try {
      resolved = await realpath(p);
    } catch (err) {
      if (isMissing(err)) throw badArgs(`path '${path}' does not resolve: ${what} does not exist (saves/ holds one folder per save)`);
      throw err;
    }
    if (!within(savesReal, resolved)) throw badArgs(`path '${path}' resolves outside saves/ (a link out of it); saves are read from inside saves/ only`);
    return resolved;
  };

  let shown = candidate;
  let file = await real(candidate, shownPath(dirs, candidate));
  const info = await stat(file);
  if (info.isDirectory()) {
    if (file === savesReal) throw badArgs(`path '${path}' names saves/ itself, not a save`);
    shown = join(candidate, SAVE_FILE);
    file = await real(join(file, SAVE_FILE), shownPath(dirs, shown));
  }
  if (!(await stat(file)).isFile()) throw badArgs(`path '${path}' names no save: ${shownPath(dirs, shown)} is not a file`);
  return { file, shown: shownPath(dirs, shown) };
}
