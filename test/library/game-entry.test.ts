// The light entry for game code (`game-control-bridge/game`): imported by its package name in a
// fresh process, it loads none of the server's libraries. A recorder hook lists every module the
// process resolves; the root entry, imported the same way, is the control that shows the recorder
// sees those libraries when they do load.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.ts';
import { tempDir } from '../helpers/bridge.ts';

const run = promisify(execFile);
const RECORDER = join(REPO_ROOT, 'test/fixtures/record-imports.mjs');
const SERVER_LIBRARIES = ['hono', '@hono/node-server', 'piscina', 'ajv', '@modelcontextprotocol/sdk'];

/** The module URLs a fresh `node --import tsx` process resolves while it imports `specifier`, and what the script printed. */
async function importFresh(specifier: string, script = ''): Promise<{ urls: string[]; stdout: string }> {
  const dir = tempDir('gcb-imports-');
  const log = join(dir, 'imports.log');
  try {
    const source = `const entry = await import(${JSON.stringify(specifier)});\n${script}`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--import', RECORDER, '--input-type=module', '-e', source], {
      cwd: REPO_ROOT,
      env: { ...process.env, GCB_IMPORT_LOG: log },
      timeout: 30_000,
    });
    return { urls: readFileSync(log, 'utf8').split('\n').filter(Boolean), stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const libraryOf = (url: string) => SERVER_LIBRARIES.find((name) => url.includes(`/node_modules/${name}/`));

t.test('game-control-bridge/game loads none of hono, piscina, ajv or the MCP SDK', async (t) => {
  const script = `
    const error = entry.gameRejected('no sheep on water');
    console.log(JSON.stringify({ exports: Object.keys(entry).sort(), code: error.code, status: error.status, exception: error.exception.type }));
  `;
  const { urls, stdout } = await importFresh('game-control-bridge/game', script);
  t.ok(
    urls.some((url) => url.endsWith('/src/game-api.ts')),
    'the package name resolves to the light entry',
  );
  t.same(urls.map(libraryOf).filter(Boolean), [], 'no server library was loaded');
  const answer = JSON.parse(stdout) as { exports: string[]; code: string; status: number; exception: string };
  t.same(answer.exports, ['BridgeError', 'badArgs', 'gameRejected', 'outOfBounds', 'unknownAsset'], 'the error helpers a game throws');
  t.match(answer, { code: 'GAME_REJECTED', status: 422, exception: 'GameRejected' });
});

t.test('control: the root entry does load them, and the recorder sees it', async (t) => {
  const { urls } = await importFresh('game-control-bridge');
  const loaded = new Set(urls.map(libraryOf).filter(Boolean));
  for (const name of ['hono', 'piscina', 'ajv']) t.ok(loaded.has(name), `${name} is loaded by the root entry`);
});

t.test('the exports map and tsconfig paths agree, and exports point at what the build writes', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    main: string;
    types: string;
    exports: Record<string, string | { types: string; default: string }>;
  };
  const tsconfig = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  const paths = tsconfig.compilerOptions.paths;
  const subpaths = Object.entries(pkg.exports).filter(([, target]) => typeof target === 'object');
  t.same(
    subpaths.map(([subpath]) => (subpath === '.' ? 'game-control-bridge' : `game-control-bridge/${subpath.slice(2)}`)).sort(),
    Object.keys(paths).sort(),
    'every entry of exports has a source path for tsx, and no more',
  );
  for (const [subpath, target] of subpaths) {
    const name = subpath === '.' ? 'game-control-bridge' : `game-control-bridge/${subpath.slice(2)}`;
    const source = paths[name]![0]!.replace(/^\.\//, '');
    // tsconfig.build.json: rootDir ".", outDir "dist", .ts → .js and .d.ts
    const built = `./dist/${source.replace(/\.ts$/, '')}`;
    t.same(target, { types: `${built}.d.ts`, default: `${built}.js` }, `${name} → ${source} from sources, ${built}.js once built`);
  }
  t.same(pkg.exports['.'], { types: pkg.types, default: pkg.main }, 'the root export is the main entry, as before');
});
