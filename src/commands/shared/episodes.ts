// decisions §12: where records live, `episodes/<name>.jsonl` in the config dir, confined as saves
// are (§11): a checked name, the folder created 0700, and its real path inside the real config
// dir, so a link never carries a record out. Runs on a pool thread; the game thread opens the file
// itself (recorder.ts), refusing a link at the file's own name.
import { mkdir, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { badArgs } from '../../errors/bridge-error.ts';
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
