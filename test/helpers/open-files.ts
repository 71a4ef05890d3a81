// The files under a folder that this process holds open, for tests of code that must close what it
// opens (Linux only: the links of /proc/self/fd).
import { readdirSync, readlinkSync } from 'node:fs';

export const canListOpenFiles = process.platform === 'linux';

export function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) open.push(target);
    } catch {
      // closed meanwhile (the one readdirSync used)
    }
  }
  return open;
}
