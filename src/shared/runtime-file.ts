// The runtime file: a running bridge names itself beside bridge.toml (URL, port, pid, version), so a
// client pointed at the config dir finds it wherever it listens (--port N, --port 0). It holds no
// secret. Read by the clients too, so this module needs nothing but node:fs and node:path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const RUNTIME_FILE = 'bridge.runtime.json';

export interface RuntimeInfo {
  pid: number;
  /** Absent while the bridge is starting (it has not listened yet). */
  url?: string;
  port?: number;
  mod_version: string;
  started_at: string;
}

/** Runtime files this process holds: a file with our own pid that is not among them is stale. */
export const heldRuntimeFiles = new Set<string>();

export function runtimePath(configDir: string): string {
  return join(configDir, RUNTIME_FILE);
}

/** The runtime file of a live bridge in this config dir, or undefined (none, unreadable, or its pid is gone). */
export function readRuntime(configDir: string): RuntimeInfo | undefined {
  const path = runtimePath(configDir);
  let info: unknown;
  try {
    info = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRuntimeInfo(info) || !pidAlive(info.pid)) return undefined;
  if (info.pid === process.pid && !heldRuntimeFiles.has(path)) return undefined;
  return info;
}

function isRuntimeInfo(value: unknown): value is RuntimeInfo {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return (
    Number.isInteger(fields.pid) &&
    (fields.pid as number) > 0 &&
    (fields.url === undefined || (typeof fields.url === 'string' && /^http:\/\/127\.0\.0\.1:\d{1,5}$/.test(fields.url))) &&
    (fields.port === undefined || Number.isInteger(fields.port)) &&
    typeof fields.mod_version === 'string'
  );
}

/** Signal 0 tests for a process without touching it; EPERM means it exists under another user. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
