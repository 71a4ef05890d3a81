// Paths that tests hand to the bridge at run time. Tests run from TypeScript sources (tsx) or from
// a compiled build; a URL to a .ts fixture or entry point must follow whichever is running, so
// every such path is made here and nowhere else.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCE, moduleUrl } from '../../src/shared/modules.ts';

/** The root of this module tree: the repository from sources, the build dir when compiled. */
export const TREE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The repository (package.json, docs/, README.md), whichever tree runs: the build dir is `.build/` in it. */
export const REPO_ROOT = FROM_SOURCE ? TREE_ROOT : join(TREE_ROOT, '..');

/** A module of test/fixtures/, by its .ts name. */
export function fixture(name: string): URL {
  return moduleUrl(`../fixtures/${name}`, import.meta.url);
}

/** A module of the tree by its repository path (`examples/node-game/game.ts`). */
export function treeModule(path: string): URL {
  return moduleUrl(`../../${path}`, import.meta.url);
}

/** Node arguments that run a .ts entry point of the repository (`src/main.ts`) in a child process. */
export function nodeArgs(entry: string, ...args: string[]): string[] {
  return FROM_SOURCE ? ['--import', 'tsx', join(REPO_ROOT, entry), ...args] : [fileURLToPath(treeModule(entry)), ...args];
}
