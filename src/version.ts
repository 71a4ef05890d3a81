import { PACKAGE } from './package-root.ts';

// mod_version is the package version, read once (decisions §1, §7 and §12: 0.5.x with research mode and per-agent byte budgets).
export const MOD_VERSION: string = PACKAGE.version;
