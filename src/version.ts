import { PACKAGE } from './package-root.ts';

// mod_version is the package version, read once (decisions §1 and §7: 0.4.x with events, batches, metrics, live agents.json).
export const MOD_VERSION: string = PACKAGE.version;
