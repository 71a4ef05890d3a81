// decisions §1 and §7: closing the bridge ends every event stream cleanly.
import t from 'tap';
import { openSse, startEventBridge } from './helpers.ts';

t.test('closing the bridge ends every stream cleanly', async (t) => {
  const b = await startEventBridge(t);
  const streams = await Promise.all([openSse(b.bridge.port, '/events?since=0'), openSse(b.bridge.port, '/events')]);
  await streams[0]!.waitFor((f) => f.event === 'world_generated');
  await b.bridge.close();
  for (const stream of streams) t.same(await stream.ended, { clean: true }, 'the response ended (chunked terminator), not a reset');
});
