// decisions §11: bridge.toml and agents.json hold credentials; readable by the group or by others,
// they are one warning line at start (the bridge writes bridge.toml 0600 itself; a file copied or
// edited into place may not be). Only the modes are read here: what each file holds is told by the
// caller, which has parsed it.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Logger } from 'pino';

/**
 * The files among `paths` that exist and that the group or others may read, with their modes.
 * `platform`: the machine's (a test passes another).
 */
export function readableByOthers(paths: readonly string[], platform: NodeJS.Platform = process.platform): Array<{ file: string; mode: string }> {
  if (platform === 'win32') return []; // no POSIX modes to read
  const found: Array<{ file: string; mode: string }> = [];
  for (const path of paths) {
    let mode = 0; // stays 0 for a file that is absent (agents.json in legacy mode): read by no one
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      // absent
    }
    if ((mode & 0o044) !== 0) found.push({ file: path, mode: mode.toString(8).padStart(4, '0') });
  }
  return found;
}

/** A config file and what it holds, in words for the warning ("the bridge token", "token digests only"). */
export interface ConfigFile {
  path: string;
  holds: string;
}

/** One warning line naming every such file, its mode and what it holds, or nothing. */
export function warnReadableConfig(files: readonly ConfigFile[], log: Logger): void {
  const found = readableByOthers(files.map(({ path }) => path));
  if (found.length === 0) return;
  const holds = new Map(files.map(({ path, holds }) => [path, holds]));
  const list = found.map(({ file, mode }) => `${basename(file)} (mode ${mode}, holding ${holds.get(file)})`).join(' and ');
  log.warn(
    { files: found.map(({ file }) => file) },
    `${list} can be read by other users of this machine: chmod 600 ${found.map(({ file }) => file).join(' ')}`,
  );
}
