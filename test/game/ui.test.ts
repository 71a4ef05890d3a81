// The welcome window and the configured pause freeze the simulation; speeds scale the ticks.
import t from 'tap';
import * as game from '../../src/game/index.ts';
import { SPEEDS } from '../../src/game/assets.ts';
import { MAX_TICKS_PER_UPDATE } from '../../src/game/ui.ts';
import { SMALL } from './helpers.ts';

t.test('before init: import is side-effect free and the tick is 0', async (t) => {
  t.equal(game.currentTick(), 0);
  t.throws(() => game.getUiState(), /not initialised/);
  t.end();
});

t.test('the welcome window freezes ticks until dismissed, and paused reads true meanwhile', (t) => {
  game.init({ ...SMALL, suppressStartupWindow: false });
  t.same(game.getUiState(), { window_active: true, current_window: 'welcome', config_paused: false, effective_paused: true, world_loading: false });
  t.equal(game.getWorldState().paused, true, 'paused although nobody paused it');
  for (let n = 0; n < 20; n++) game.update(100);
  t.equal(game.currentTick(), 0, 'no tick while the window is open');
  t.same(game.dismissWindow(), { dismissed: true, window: 'welcome' });
  t.same(game.dismissWindow(), { dismissed: false, window: null });
  t.equal(game.getWorldState().paused, false);
  game.update(100);
  t.equal(game.currentTick(), 2, '100 ms at x1 is two 50 ms ticks');
  t.end();
});

t.test('suppressStartupWindow shows no window', (t) => {
  game.init(SMALL);
  t.equal(game.getUiState().window_active, false);
  game.update(50);
  t.equal(game.currentTick(), 1);
  t.end();
});

t.test('pause freezes ticks; resume continues without replaying the pause', (t) => {
  game.init(SMALL);
  t.equal(game.setPaused(true), false, 'returns the previous value');
  t.same(game.getUiState(), { window_active: false, current_window: null, config_paused: true, effective_paused: true, world_loading: false });
  const hash = game.stateHash();
  for (let n = 0; n < 10; n++) game.update(100);
  t.equal(game.currentTick(), 0);
  t.equal(game.stateHash(), hash, 'nothing moved');
  t.equal(game.setPaused(false), true);
  game.update(50);
  t.equal(game.currentTick(), 1);
  t.end();
});

t.test('speeds multiply the ticks a frame buys', (t) => {
  game.init(SMALL);
  t.same(
    game.listSpeeds().map((s) => s.id),
    ['slow_mo', 'x1', 'x2', 'x3', 'x4', 'x5', 'x10', 'x15', 'x20', 'x40'],
  );
  t.equal(SPEEDS.find((s) => s.id === 'slow_mo')!.multiplier, 0.5);
  t.equal(game.currentSpeed(), 'x1');
  t.equal(game.setSpeed('slow_mo'), 'x1');
  game.update(100);
  t.equal(game.currentTick(), 1, 'slow_mo: 100 ms is one tick');
  t.equal(game.setSpeed('x10'), 'slow_mo');
  game.update(50);
  t.equal(game.currentTick(), 11);
  game.setSpeed('x40');
  game.update(1000);
  t.equal(game.currentTick(), 11 + MAX_TICKS_PER_UPDATE, 'a long frame is capped, not caught up');
  t.throws(() => game.setSpeed('x7'), { code: 'UNKNOWN_ASSET' });
  t.equal(game.currentSpeed(), 'x40');
  t.end();
});

t.test('bad frame lengths do nothing', (t) => {
  game.init(SMALL);
  for (const dt of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) game.update(dt);
  t.equal(game.currentTick(), 0);
  t.end();
});

t.test('world_loading follows setWorldLoading', (t) => {
  game.init(SMALL);
  game.setWorldLoading(true);
  t.equal(game.getUiState().world_loading, true);
  game.setWorldLoading(false);
  t.equal(game.getUiState().world_loading, false);
  t.end();
});
