// Issue 16, tests that would not notice: a kill switch that re-read bridge.toml once (a timeout
// instead of an interval) passed, because the unit test flipped it once. Here the timer alone
// (no reload() called by the test) must follow five flips in a row.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import { watchKillSwitch } from '../../src/config/kill-switch.ts';
import { tempDir, until } from '../helpers/bridge.ts';

const TOKEN = 'K'.repeat(24) + 'f'.repeat(24);
const config = (enabled: boolean) => `enabled = ${enabled}\n[Bridge]\ntoken = "${TOKEN}"\n`;

t.test('the timer re-reads bridge.toml again and again', async (t) => {
  const dir = tempDir();
  const path = join(dir, 'bridge.toml');
  writeFileSync(path, config(true));
  const changes: boolean[] = [];
  const ks = watchKillSwitch({ path, initial: true, intervalMs: 25, log: pino({ enabled: false }), onChange: (v) => changes.push(v) });
  t.teardown(() => ks.stop());
  const flips = [false, true, false, true, false];
  for (const [n, enabled] of flips.entries()) {
    // By rename, as editors save: the reload never sees half a file.
    writeFileSync(`${path}.new`, config(enabled));
    renameSync(`${path}.new`, path);
    await until(() => ks.enabled === enabled, 5000, `flip ${n + 1} (enabled = ${enabled}) to be read`);
    t.equal(ks.enabled, enabled, `flip ${n + 1} followed by the timer`);
  }
  t.same(changes, flips, 'every flip reported once, in order');
});
