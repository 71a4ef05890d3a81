// Issue 16: a prefix of the token, or the token minus its last character, never authenticates:
// over HTTP, with both credential headers (the table itself: token-prefix.test.ts).
import t from 'tap';
import { startTestBridge } from '../helpers/bridge.ts';
import { nearMisses } from './near-misses.ts';

t.test('over HTTP: a prefix of the token, or the token minus its last character, is 401', async (t) => {
  const b = await startTestBridge(t);
  t.equal((await b.fetch('/health')).status, 200);
  for (const miss of nearMisses(b.token)) {
    for (const header of ['authorization', 'x-wb-token'] as const) {
      const value = header === 'authorization' ? `Bearer ${miss}` : miss;
      const response = await b.fetch('/health', { headers: { [header]: value } });
      t.equal(response.status, 401, `${header}: ${miss.length} of ${b.token.length} characters refused`);
    }
  }
});
