// The viewer's files (decisions §9): the page and its scripts from src/view/assets/ (shipped in the
// package), and the small libraries it uses straight from node_modules, so nothing is built at run
// time and nothing comes from a CDN. Only files named here are served: a path is a key, not a path
// on disk.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE } from '../package-root.ts';

export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Libraries the page imports by bare name (its import map points them at /view/vendor/). */
const VENDOR: Record<string, string> = {
  'preact.mjs': 'preact',
  'hooks.mjs': 'preact/hooks',
  'htm.mjs': 'htm',
  'htm-preact.mjs': 'htm/preact',
  'uplot.mjs': 'uplot/dist/uPlot.esm.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
};

/** The page's own files, in the package's src/ (compiled code serves them from there too). */
export const ASSETS_DIR = join(PACKAGE.root, 'src/view/assets/');

/** Every servable file by URL path, read once. */
export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(ASSETS_DIR)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    assets.set(name === 'index.html' ? '/' : `/view/${name}`, { type, body: readFileSync(`${ASSETS_DIR}${name}`) });
  }
  for (const [name, specifier] of Object.entries(VENDOR)) {
    const file = fileURLToPath(import.meta.resolve(specifier));
    assets.set(`/view/vendor/${name}`, { type: TYPES[extname(name)]!, body: readFileSync(file) });
  }
  return assets;
}
