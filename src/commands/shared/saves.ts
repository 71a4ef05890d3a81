// Save files live in `<savesDir>/<name>/world.sav` (decisions §3). Everything here runs on a pool
// thread. Paths are confined twice: lexically (no NUL, no `..`, absolute paths only inside saves/)
// and after resolving symlinks (realpath must stay inside the real saves/), so a link pointing out
// of saves/ is neither read nor written through.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { badArgs } from '../../errors/bridge-error.ts';

export const SAVE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const SAVE_NAME = new RegExp(SAVE_NAME_PATTERN);
export const SAVE_FILE = 'world.sav';

export function checkSaveName(name: string): void {
  if (!SAVE_NAME.test(name)) {
    throw badArgs(`save name '${name}' is not valid: 1 to 64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit`);
  }
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
export async function writeSave(savesDir: string, name: string, bytes: Uint8Array): Promise<string> {
  checkSaveName(name);
  await mkdir(savesDir, { recursive: true });
  const savesReal = await realpath(savesDir);
  const folder = join(savesReal, name);
  try {
    await lstat(folder);
  } catch (err) {
    if (!isMissing(err)) throw err;
    await mkdir(folder).catch((mkdirErr: unknown) => {
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
    throw badArgs(`save '${name}' resolves outside saves/ (a link to ${folderReal}); saves are written inside saves/ only`);
  }
  if (!(await stat(folderReal)).isDirectory()) throw badArgs(`save '${name}' exists in saves/ but is not a folder`);

  const target = join(folderReal, SAVE_FILE);
  const temp = join(folderReal, `.${SAVE_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', 0o644);
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
  return resolve(savesDir, name, SAVE_FILE);
}

/**
 * Resolves load_world's `path` to the real path of a save file inside saves/, or throws BAD_ARGS:
 * NUL bytes, `..` segments, absolute paths outside saves/, paths that do not resolve, resolve
 * outside saves/ (symlinks), or name no save. `path` is a save name (`<name>` or `<name>/world.sav`),
 * or an absolute path inside saves/.
 */
export async function resolveSavePath(savesDir: string, path: string): Promise<string> {
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
    throw badArgs(`path '${path}' is outside saves/: give a save name, or an absolute path inside ${base}`);
  }
  const candidate = isAbsolute(path) ? resolve(path) : resolve(base, path);

  const real = async (p: string, what: string): Promise<string> => {
    let resolved: string;
    try {
      resolved = await realpath(p);
    } catch (err) {
      if (isMissing(err)) throw badArgs(`path '${path}' does not resolve: ${what} does not exist (saves/ holds one folder per save)`);
      throw err;
    }
    if (!within(savesReal, resolved)) throw badArgs(`path '${path}' resolves outside saves/ (to ${resolved}); saves are read from inside saves/ only`);
    return resolved;
  };

  let file = await real(candidate, candidate);
  const info = await stat(file);
  if (info.isDirectory()) {
    if (file === savesReal) throw badArgs(`path '${path}' names saves/ itself, not a save`);
    file = await real(join(file, SAVE_FILE), `${join(candidate, SAVE_FILE)}`);
  }
  if (!(await stat(file)).isFile()) throw badArgs(`path '${path}' names no save: ${file} is not a file`);
  return file;
}
