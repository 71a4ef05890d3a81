// toFailure across module copies: a game that imports game-control-bridge/game from sources while
// the bridge runs from dist/ throws a BridgeError of another class; its exception (type
// GameRejected, the game's own stack top) must survive as if it were ours.
import t from 'tap';
import { gameRejected, toFailure } from '../../src/errors/bridge-error.ts';

t.test('a GAME_REJECTED error of another copy keeps its exception', async (t) => {
  const ours = gameRejected('no sheep on water');
  // What the other copy's error looks like to us: an Error with code and exception, not our class.
  const foreign = Object.assign(new Error(ours.message), { code: ours.code, exception: ours.exception });
  t.same(toFailure(foreign), toFailure(ours));
  t.match(toFailure(foreign), { code: 'GAME_REJECTED', exception: { type: 'GameRejected', stack_top: /bridge-error\.test\.ts/ } });
});

t.test('an error that only carries the code gets its exception described', async (t) => {
  const plain = Object.assign(new TypeError('refused'), { code: 'GAME_REJECTED' });
  t.match(toFailure(plain), { code: 'GAME_REJECTED', message: 'refused', exception: { type: 'TypeError', message: 'refused' } });
  const malformed = Object.assign(new Error('refused'), { code: 'GAME_REJECTED', exception: { type: 1 } });
  t.match(toFailure(malformed).exception, { type: 'Error', message: 'refused' }, 'a malformed exception is not passed on');
});
