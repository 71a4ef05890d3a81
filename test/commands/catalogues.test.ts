// decisions §3 on the game thread: asset ids are checked against the game's catalogues, each read
// from the game once (a build's catalogue does not change while it runs).
import t from 'tap';
import { Catalogues } from '../../src/commands/shared/checks.ts';
import type { GameModule } from '../../src/shared/game-module.ts';

function countingGame() {
  const reads: string[] = [];
  const list = (name: string, ids: Array<Record<string, unknown>>) => () => (reads.push(name), ids);
  const game = {
    listTiles: list('tiles', [{ id: 'grass' }, { id: 'sand' }]),
    listTopTiles: list('tops', [{ id: 'tree' }]),
    listActors: list('actors', [{ id: 'human' }, { id: 'sheep' }]),
    listPowers: list('powers', [{ id: 'rain', supports_radius: true }, { id: 'lights', is_toggle: true }, { id: 'bolt' }]),
    listSpeeds: list('speeds', [{ id: 'x1' }]),
  } as unknown as Required<GameModule>;
  return { game, reads };
}

t.test('check(): a known id passes; another is UNKNOWN_ASSET naming the field, with the nearest ids; each list read once', async (t) => {
  const { game, reads } = countingGame();
  const catalogues = new Catalogues(game);
  t.same(reads, [], 'nothing read before it is needed');
  for (const [name, id] of [
    ['tiles', 'sand'],
    ['tops', 'tree'],
    ['actors', 'sheep'],
    ['powers', 'bolt'],
    ['speeds', 'x1'],
  ] as const) {
    t.doesNotThrow(() => catalogues.check(name, 'f', id), `${name}: ${id}`);
    t.doesNotThrow(() => catalogues.check(name, 'f', id), `${name}: ${id} again`);
  }
  t.same(reads, ['tiles', 'tops', 'actors', 'powers', 'speeds'], 'each list once');
  t.throws(() => catalogues.check('actors', 'entity_id', 'shep'), { code: 'UNKNOWN_ASSET', message: /entity_id 'shep'/, didYouMean: ['sheep', 'human'] });
  t.throws(() => catalogues.check('tiles', 'tile_id', 'human'), { code: 'UNKNOWN_ASSET' }, 'an id of another catalogue is unknown here');
});

t.test('powerFlags(): supports_radius and is_toggle as the game lists them, false when absent or unknown; the list read once', async (t) => {
  const { game, reads } = countingGame();
  const catalogues = new Catalogues(game);
  t.same(catalogues.powerFlags('rain'), { supportsRadius: true, isToggle: false });
  t.same(catalogues.powerFlags('lights'), { supportsRadius: false, isToggle: true });
  t.same(catalogues.powerFlags('bolt'), { supportsRadius: false, isToggle: false });
  t.same(catalogues.powerFlags('nope'), { supportsRadius: false, isToggle: false });
  t.same(reads, ['powers']);
});
