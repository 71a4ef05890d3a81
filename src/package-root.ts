import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = 'game-control-bridge';

/**
 * The package's folder and its package.json, found by walking up from this module. A module's depth
 * below the root differs by how it runs: src/ from sources, dist/src/ compiled, dist/workers/ when
 * bundled into a worker entry (scripts/bundle-workers.mjs), so no fixed `../..` is right everywhere.
 */
export const PACKAGE = findPackage(dirname(fileURLToPath(import.meta.url)));

function findPackage(from: string): { root: string; version: string } {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === NAME) return { root: dir, version: String(pkg.version) };
    } catch {
      // no package.json here, or not ours: go up
    }
    if (dirname(dir) === dir) throw new Error(`package.json of ${NAME} not found above ${from}`);
  }
}
