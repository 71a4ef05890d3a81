// The module is src/package-root.ts (errors/, below shared/, reads it); this path stays for imports that still use it.
export { PACKAGE } from '../package-root.ts';
