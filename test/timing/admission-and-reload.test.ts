// The spec's timing rules at their real values: the 5 s admission wait and the 2 s reload.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';

t.setTimeout(90_000);

t.test('BUSY after the real 5 s admission wait', async (t) => {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent: 1 });
  const counters = new SharedArrayBuffer(32);
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { counters, stallOnPauseMs: 7000 } });
  const holder = b.cmd('pause');
  await until(() => Atomics.load(new Int32Array(counters), COUNTER.pause) === 1, 5000, 'the slot holder to start');
  const started = Date.now();
  const [command, health] = await Promise.all([b.cmd('get_ui_state'), b.fetch('/health')]);
  const elapsed = (Date.now() - started) / 1000;
  t.ok(elapsed >= 4.5 && elapsed <= 7, `BUSY after ${elapsed.toFixed(2)} s (spec: 5 s)`);
  t.equal(command.status, 503);
  t.equal(command.body.error.code, 'BUSY');
  t.equal(command.headers.get('retry-after'), '1');
  t.equal(health.status, 503);
  t.equal((await holder).status, 200);
});

t.test('the kill switch is re-read within the real 2 s interval', async (t) => {
  const dir = tempDir();
  const token = writeConfig(dir);
  const b = await startTestBridge(t, { configDir: dir });
  const file = join(dir, 'bridge.toml');
  writeFileSync(file, `enabled = false\n[Bridge]\ntoken = "${token}"\n`);
  const flipped = Date.now();
  let status = 200;
  while (status !== 503 && Date.now() - flipped < 6000) {
    status = (await b.cmd('get_ui_state')).status;
    if (status !== 503) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (Date.now() - flipped) / 1000;
  t.equal(status, 503);
  t.ok(seconds <= 4.5, `disabled ${seconds.toFixed(2)} s after the edit (spec: re-read every 2 s)`);
  writeFileSync(file, `enabled = true\n[Bridge]\ntoken = "${token}"\n`);
  const restored = Date.now();
  while (status !== 200 && Date.now() - restored < 6000) {
    status = (await b.cmd('get_ui_state')).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(status, 200, 'enabled again without a restart');
  t.ok((Date.now() - restored) / 1000 <= 4.5);
});
