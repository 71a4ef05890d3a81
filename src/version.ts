import { readFileSync } from 'node:fs';

// mod_version is the package version, read once (decisions §1 and §7: 0.4.x with events, batches, metrics, live agents.json).
// From src/ (sources) the package is one level up; from dist/src/ (compiled) two.
const pkg = JSON.parse(readFirst(['../package.json', '../../package.json'])) as { version: string };

function readFirst(paths: string[]): string {
  for (const path of paths) {
    try {
      const text = readFileSync(new URL(path, import.meta.url), 'utf8');
      if ((JSON.parse(text) as { name?: string }).name === 'game-control-bridge') return text;
    } catch {
      // not this one
    }
  }
  throw new Error('package.json of game-control-bridge not found');
}

export const MOD_VERSION: string = pkg.version;
