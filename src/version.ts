import { readFileSync } from 'node:fs';

// mod_version is the package version, read once (decisions §1: 0.3.x or later).
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const MOD_VERSION: string = pkg.version;
