// The sandbox as a GameModule: every function is a named export, `run` is not, importing it does
// nothing, and the world's code stays out of the bridge's layers.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GameFunctionName } from '../../src/shared/game-module.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

const FUNCTIONS: Array<GameFunctionName | 'version'> = [
  'version',
  'init',
  'update',
  'currentTick',
  'listTiles',
  'listTopTiles',
  'listActors',
  'listPowers',
  'listSpeeds',
  'currentSpeed',
  'getUiState',
  'dismissWindow',
  'setPaused',
  'setSpeed',
  'worldSize',
  'getWorldState',
  'getTile',
  'listKingdoms',
  'listCities',
  'queryActors',
  'kingdomOrder',
  'observeGrid',
  'spawn',
  'paintTile',
  'invokePower',
  'snapshotWorld',
  'installWorld',
  'setWorldLoading',
  'generateWorld',
  'encodeSave',
  'decodeSave',
  'renderSnapshot',
  'advance',
  'snapshot',
  'restore',
  'snapshotBytes',
  'stateHash',
];

t.test('named exports implement GameModule, without run', async (t) => {
  const mod = (await import('../../src/game/index.ts')) as Record<string, unknown>;
  for (const name of FUNCTIONS) {
    if (name === 'version') t.type(mod.version, 'string');
    else t.type(mod[name], 'function', name);
  }
  t.notOk('run' in mod, 'the bridge drives the frames');
  t.notOk('default' in mod);
  t.equal((mod.currentTick as () => number)(), 0, 'no world until init');
});

t.test('the pure functions work in a fresh module without init (as in a pool worker)', async (t) => {
  const mod = await import('../../src/game/index.ts');
  const snapshot = mod.generateWorld({ zonesX: 2, zonesY: 2, seed: 1 });
  const bytes = mod.encodeSave(snapshot, true);
  t.equal(mod.snapshotHash(mod.decodeSave(bytes)), mod.snapshotHash(snapshot));
  t.equal(mod.renderSnapshot(snapshot, 32).width, 32);
  t.equal(mod.currentTick(), 0, 'still no live world');
  // A snapshot survives structured cloning (postMessage between threads).
  t.equal(mod.snapshotHash(structuredClone(snapshot)), mod.snapshotHash(snapshot));
});

t.test('src/game imports nothing from the bridge layers, and nothing ambient', (t) => {
  const dir = join(REPO_ROOT, 'src/game');
  const problems: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(join(dir, file), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const [, spec] of code.matchAll(/from '([^']+)'/g)) {
      if (/(^|\/)(http|dispatch|admission|auth|workers|commands|config)\//.test(spec!)) problems.push(`${file} imports ${spec}`);
      if (spec!.startsWith('.') && !spec!.endsWith('.ts')) problems.push(`${file}: no .ts extension on ${spec}`);
    }
    if (/Math\.random|Date\.now|performance\.now|new Date\(/.test(code)) problems.push(`${file} uses ambient randomness or the clock`);
  }
  t.same(problems, []);
  t.end();
});
