// decisions §12: where records live, `episodes/<name>.jsonl` in the config dir, confined as saves
// are (§11): a checked name, the folder created 0700, and its real path inside the real config
// dir, so a link never carries a record out. decisions §15: the file itself is created new, never
// opened through a name that exists. All of it runs on a pool thread: the game thread only writes.
import { close, constants, open } from 'node:fs';
import { lstat, mkdir, realpath, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { badArgs, gameRejected } from '../../errors/bridge-error.ts';
import type { BridgeInfo } from '../../shared/protocol.ts';
import { checkFileName } from './saves.ts';

export const EPISODES_FOLDER = 'episodes';
export const RECORD_EXTENSION = '.jsonl';

export interface RecordPath {
  /** The real path to open. */
  file: string;
  /** The path answers show: `episodes/<name>.jsonl`, relative to the config dir. */
  shown: string;
}

export async function recordPath(info: Pick<BridgeInfo, 'configDir'>, name: string): Promise<RecordPath> {
  checkFileName('record', name);
  const folder = join(info.configDir, EPISODES_FOLDER);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const [configReal, folderReal] = await Promise.all([realpath(info.configDir), realpath(folder)]);
  const rel = relative(configReal, folderReal);
  if (rel !== EPISODES_FOLDER)
    throw badArgs(`${EPISODES_FOLDER}/ resolves outside the config dir (a link out of it); records are written inside ${EPISODES_FOLDER}/ only`);
  const fileName = `${name}${RECORD_EXTENSION}`;
  return { file: join(folderReal, fileName), shown: `${EPISODES_FOLDER}/${fileName}` };
}

const openFile = promisify(open);
const closeFile = promisify(close);

/**
 * decisions §15: creates the record's file, write-only, mode 0600, with O_CREAT | O_EXCL |
 * O_NOFOLLOW: whatever is at the name (a record, a hard link, a symlink, a FIFO, a folder) makes it
 * fail, so nothing is ever opened, truncated or written through it, and no open blocks. With
 * `replace`, a regular file at the name is removed first (a hard link's other names keep their
 * file); anything else is refused. Returns the raw descriptor, which the game thread writes to.
 */
export async function createRecordFile(path: RecordPath, replace: boolean): Promise<number> {
  if (replace) {
    const found = await lstatOrNull(path.file);
    if (found !== null && !found.isFile()) throw notReplaceable(path.shown, found);
    if (found !== null) await unlink(path.file).catch(ignoreMissing);
  }
  try {
    return await openFile(path.file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' && (err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    const found = await lstatOrNull(path.file);
    throw gameRejected(
      `${path.shown} exists (${found === null ? 'something was there a moment ago' : kindOf(found)}): records are created new, never written through a name that exists; ` +
        'pick another name, or record_start { replace: true } to replace a record (a regular file)',
      'RecordExists',
    );
  }
}

/** Gives back a file createRecordFile made, when the record did not start after all: closed and removed. */
export async function discardRecordFile(path: RecordPath, fd: number): Promise<void> {
  await closeFile(fd).catch(() => {});
  await unlink(path.file).catch(ignoreMissing);
}

function notReplaceable(shown: string, found: Stats): Error {
  return gameRejected(`${shown} is ${kindOf(found)}: replace removes a regular file only; remove it yourself or pick another name`, 'RecordNotReplaceable');
}

/** What is at a record's name, in words. */
function kindOf(found: Stats): string {
  if (found.isSymbolicLink()) return 'a symbolic link';
  if (found.isFIFO()) return 'a FIFO';
  if (found.isDirectory()) return 'a folder';
  if (found.isFile()) return found.nlink > 1 ? `a regular file with ${found.nlink} names (a hard link)` : 'a regular file';
  return 'a special file';
}

async function lstatOrNull(file: string): Promise<Stats | null> {
  try {
    return await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}
