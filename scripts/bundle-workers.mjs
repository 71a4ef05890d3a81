#!/usr/bin/env node
// `node scripts/bundle-workers.mjs OUT_DIR`: each thread entry (workers/*.ts) bundled with its
// imports into OUT_DIR/workers/<name>.js, replacing what tsc emitted there. Run after tsc by
// `npm run build` (OUT_DIR dist) and `npm test` (.build and dist).
//
// Why: a bridge starts a game thread and its pool threads, and each thread loads its own copy of
// every module it imports. Unbundled that is ~280 files a pool thread and ~380 the game thread,
// 200 of them @sinclair/typebox's; resolving and compiling them was most of a thread's start. Measured
// 2026-11-26 (a bridge started, asked whoami, closed; one pool thread): 625 ms of CPU unbundled,
// 300 ms bundled. The game module and command modules a user names stay outside: they are loaded
// by URL at run time, as before. tsx stays outside too: it is loaded only to import a .ts game
// from compiled code, and it finds esbuild's binary from its own folder.
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node scripts/bundle-workers.mjs OUT_DIR (dist or .build)\n');
  process.exit(2);
}

await build({
  absWorkingDir: ROOT,
  entryPoints: ['workers/command-worker.ts', 'workers/game-thread.ts'],
  outdir: join(ROOT, out, 'workers'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Stacks of a bundled thread still name the .ts sources (GAME_CRASH's stack_top, a test's trace).
  sourcemap: true,
  external: ['tsx', 'tsx/*'],
  // Some bundled dependencies are CommonJS and call require() (pngjs: zlib, stream).
  banner: { js: "import { createRequire as gcbCreateRequire } from 'node:module';\nconst require = gcbCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
