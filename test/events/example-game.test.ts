// examples/node-game declares and emits an event of its own (docs/game-module.md#events).
import t from 'tap';
import { startTestBridge } from '../helpers/bridge.ts';
import { treeModule } from '../helpers/paths.ts';

t.test('the example game’s own kind is in event_kinds; its thread’s start is an event', async (t) => {
  const b = await startTestBridge(t, { game: treeModule('examples/node-game/game.ts') });
  const caps = (await (await b.fetch('/capabilities')).json()) as { event_kinds: string[] };
  t.ok(caps.event_kinds.includes('sheep_at_fence'));
  const started = (await b.cmd('recv_events', { since_seq: 0, kinds: ['world_generated'] })).body.result;
  // The example exports no worldSize(): the event carries the seed it started from.
  t.match(started.items[0], { kind: 'world_generated', cause: 'startup', seed: Number });
});
