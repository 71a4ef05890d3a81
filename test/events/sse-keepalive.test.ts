// GET /events keep-alive comments, and the kill switch: it does not stop events, it emits one
// (decisions §7).
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';
import { EVENT_COMMANDS, EVENT_GAME, openSse, TOKEN, writeEventConfig } from './helpers.ts';

t.test('keep-alive comments; the kill switch does not stop events and emits enabled_changed', async (t) => {
  const dir = tempDir('gcb-events-');
  writeEventConfig(dir);
  // Short timings (Timings): the 15 s keep-alive and the 2 s kill-switch reload, scaled down.
  const b = await startTestBridge(t, {
    configDir: dir,
    game: EVENT_GAME,
    commandModules: [EVENT_COMMANDS],
    gameOptions: { eventsPerSecond: 60 },
    timings: { eventKeepAliveMs: 100, killSwitchReloadMs: 50 },
  });
  const sse = await openSse(b.bridge.port, '/events?kinds=ping,enabled_changed');
  await sse.waitFor((f) => f.comment !== undefined, 5000, 'a keep-alive comment');
  t.pass('an idle-or-not stream gets a comment line');
  const path = join(dir, 'bridge.toml');
  const text = `enabled = false\n[Bridge]\ntoken = "${TOKEN}"\n`;
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  const changed = await sse.waitFor((f) => f.event === 'enabled_changed', 5000, 'enabled_changed');
  t.match(JSON.parse(changed.data!), { enabled: false, kingdom_ids: [] });
  t.equal((await b.cmd('get_ui_state')).status, 503, 'POST /cmd answers DISABLED');
  const seq = JSON.parse(changed.data!).seq;
  await sse.waitFor((f) => f.event === 'ping' && JSON.parse(f.data!).seq > seq, 5000, 'events after the switch');
  const late = await openSse(b.bridge.port, '/events?kinds=ping');
  t.equal(late.status, 200, 'a new stream opens while disabled');
  await late.waitFor((f) => f.event === 'ping', 5000, 'a ping on it');
  late.close();
  sse.close();
});
