// What the bench scenarios send: a bridge config dir and the request shapes, in one place.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FPS = 60;

/** A fresh config dir with a known token. */
export function configDir(settings: { slots?: number; fps?: number } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcb-bench-'));
  writeFileSync(
    join(dir, 'bridge.toml'),
    `[Bridge]\ntoken = "${'b'.repeat(48)}"\nmax_concurrent_requests = ${settings.slots ?? 8}\n[Game]\nfps = ${settings.fps ?? FPS}\n`,
  );
  return dir;
}

export const auth = (token: string) => ({ authorization: `Bearer ${token}` });
export const jsonAuth = (token: string) => ({ ...auth(token), 'content-type': 'application/json' });
export const cmdBody = (name: string, args: unknown = {}) => JSON.stringify({ name, args });
