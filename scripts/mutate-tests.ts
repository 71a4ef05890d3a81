// One process for a part's tap files (npm run mutate): each file is imported in turn, its tests join
// tap's one root, and a failing test makes the process exit non-zero, which kills the mutant. One
// node + tsx + tap start a mutant instead of one a file (the start was most of a mutant's cost).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
