// Issue 16, tests that would not notice: GET /health never releasing its admission slot was caught
// only by long tests that happened to call it 9 times. Here: more calls than there are slots, one
// after another, each answered 200 with every slot free again.
import t from 'tap';
import { startTestBridge, tempDir, writeConfig } from '../helpers/bridge.ts';

t.test('GET /health gives its slot back, every time', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: 2 });
  // A leaked slot would make the third call wait this long, then answer 503 BUSY.
  const b = await startTestBridge(t, { configDir: dir, timings: { admissionWaitMs: 300 } });
  for (let n = 1; n <= 12; n++) {
    const response = await b.fetch('/health');
    t.equal(response.status, 200, `call ${n} of 12 (2 slots)`);
    t.equal(b.bridge.stats().slotsInUse, 0, `call ${n}: no slot kept`);
  }
  // And while both slots are busy with /health calls in flight at once.
  const replies = await Promise.all(Array.from({ length: 8 }, () => b.fetch('/health')));
  t.same(
    replies.map((r) => r.status),
    Array(8).fill(200),
  );
  t.equal(b.bridge.stats().slotsInUse, 0);
  t.equal((await b.cmd('health')).status, 200, 'POST /cmd health too');
  t.equal(b.bridge.stats().slotsInUse, 0);
});
