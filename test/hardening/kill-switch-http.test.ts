// Faults: the kill switch over HTTP. A running bridge re-reads bridge.toml every 100 ms here (2 s
// in production) while the file is broken, truncated, emptied, renamed over, deleted and restored:
// the last good `enabled` is kept (POST /cmd and /health say which), each bad version is warned
// about once, and nothing crashes. The unit version is test/config/kill-switch.test.ts.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { sleep } from './helpers.ts';

t.setTimeout(90_000);

const RELOAD_MS = 100;

t.test('the kill switch survives a broken bridge.toml during reloads', async (t) => {
  const dir = tempDir();
  const token = writeConfig(dir);
  const file = join(dir, 'bridge.toml');
  const good = (enabled: boolean) => `enabled = ${enabled}\n[Bridge]\ntoken = "${token}"\nmax_concurrent_requests = 8\n`;
  const b = await startTestBridge(t, { configDir: dir, timings: { killSwitchReloadMs: RELOAD_MS } });
  const warnings = () => b.logs.filter((line) => line.level === 40 && /kill switch/.test(String(line.msg)));
  const state = async () => {
    const health = await b.fetch('/health');
    const body = (await health.json()) as { enabled?: boolean };
    return { enabled: body.enabled, cmd: (await b.cmd('get_ui_state')).status };
  };
  // Every version lands at once, as an editor that saves by rename writes it: an in-place write
  // (truncate, then write) is two versions to a reload that falls between them, an empty file and
  // then the text, and each would rightly get its own warning.
  const write = (text: string | Buffer) => {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };
  const broken: Array<[string, () => void]> = [
    ['not TOML', () => write('enabled = tru\n')],
    ['truncated mid-string', () => write(good(true).slice(0, good(true).indexOf(token) + 10))],
    ['truncated mid-key', () => write('enab')],
    ['empty', () => write('')],
    ['only whitespace', () => write('\n\n  \n')],
    ['binary garbage', () => write(Buffer.from([0xff, 0xfe, 0x00, 0x3d, 0x0a]))],
    ['a wrong type', () => write(good(true).replace('enabled = true', 'enabled = "yes"'))],
    ['a value out of range', () => write(good(true).replace('max_concurrent_requests = 8', 'max_concurrent_requests = 0'))],
    ['renamed over by a broken file', () => (writeFileSync(`${file}.new`, '[Bridge\n'), renameSync(`${file}.new`, file))],
    ['deleted', () => rmSync(file)],
  ];

  for (const enabled of [false, true]) {
    await t.test(`last good enabled = ${enabled} is kept through ${broken.length} broken versions`, async (t) => {
      write(good(enabled));
      let current = await state();
      for (let i = 0; i < 50 && current.enabled !== enabled; i++) {
        await sleep(RELOAD_MS);
        current = await state();
      }
      t.same(current, { enabled, cmd: enabled ? 200 : 503 }, `enabled = ${enabled} is live`);
      const before = warnings().length;
      for (const [i, [what, breakIt]] of broken.entries()) {
        breakIt();
        await until(() => warnings().length === before + i + 1, 10_000, `the warning about ${what}`);
        await sleep(5 * RELOAD_MS); // five more reloads of the same broken file
        t.equal(warnings().length, before + i + 1, `${what}: one warning, not one a reload`);
        t.same(await state(), { enabled, cmd: enabled ? 200 : 503 }, `${what}: enabled = ${enabled} kept`);
      }
      t.match(warnings().at(-1)?.msg, /cannot read .* \(ENOENT\)/, 'the missing file is named in its warning');
    });
  }

  await t.test('a good file again is followed; nothing was logged as an error', async (t) => {
    write(good(false));
    await until(() => b.logs.filter((l) => l.msg === 'kill switch: enabled = false').length === 2, 5000, 'enabled = false to load');
    t.same(await state(), { enabled: false, cmd: 503 });
    write(good(true));
    await until(() => b.logs.filter((l) => l.msg === 'kill switch: enabled = true').length === 2, 5000, 'enabled = true to load');
    t.same(await state(), { enabled: true, cmd: 200 });
    t.same(
      b.logs.filter((l) => (l.level as number) >= 50),
      [],
      'no error or fatal line',
    );
    t.equal(b.bridge.stats().slotsInUse, 0);
  });
});
