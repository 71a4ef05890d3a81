// While it runs, the bridge names itself in a runtime file beside bridge.toml, so a client finds its
// URL and a second bridge on the same config dir is refused (the format and the reader are in
// src/shared/runtime-file.ts, which the clients share).
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { heldRuntimeFiles, readRuntime, runtimePath, type RuntimeInfo } from '../shared/runtime-file.ts';
import { ConfigError } from './load.ts';

export interface RuntimeClaim {
  /** Names the URL once the bridge listens. */
  listening(url: string, port: number): void;
  /** Removes the file (clean stop, or a start that failed). */
  release(): void;
}

/**
 * Claims the config dir for this bridge before anything starts: the file is created exclusively,
 * so of two bridges starting at once exactly one wins; the other is refused with the winner's pid
 * and URL. A file whose pid is gone (kill -9) is stale and replaced.
 */
export function claimRuntime(configDir: string, modVersion: string): RuntimeClaim {
  const path = runtimePath(configDir);
  const info: RuntimeInfo = { pid: process.pid, mod_version: modVersion, started_at: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeExclusive(path, info);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const running = readRuntime(configDir);
      if (running) {
        throw new ConfigError(
          `another bridge (pid ${running.pid}) is already running with this config dir at ${running.url ?? '(still starting)'}; stop it first, or give this one another --config-dir`,
        );
      }
      unlinkSync(path); // stale: the bridge that wrote it is gone
    }
  }
  heldRuntimeFiles.add(path);
  let released = false;
  return {
    listening(url, port) {
      // Replaced by rename, so a client never reads a half-written file.
      const temp = `${path}.${process.pid}.tmp`;
      try {
        unlinkSync(temp);
      } catch {
        // none left over
      }
      writeExclusive(temp, { ...info, url, port });
      renameSync(temp, path);
    },
    release() {
      if (released) return;
      released = true;
      heldRuntimeFiles.delete(path);
      try {
        if ((JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown }).pid === process.pid) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}

function writeExclusive(path: string, info: RuntimeInfo): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(info, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
}
