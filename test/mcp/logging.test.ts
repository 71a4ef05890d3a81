// decisions §14, over stdio and Streamable HTTP: a gap in the events a session reads is told as a
// warning (notifications/message), and logging/setLevel decides what a session is told: above its
// level, nothing. (A BUSY retried: calls.test.ts; the bridge gone and back: restart.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { bothTransports, mcpServer, recordNotifications } from './helpers.ts';

t.setTimeout(120_000);

const dir = tempDir();
const TOKEN = 'L'.repeat(48);
writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${TOKEN}"\nevent_history = 10\n`, { mode: 0o600 });
const b = await startTestBridge(t, { configDir: dir });
const mcp = await mcpServer(t, b.bridge.url);
const sessions = await bothTransports(t, mcp, b.bridge.url, TOKEN);

t.test('a gap in world://events is a warning, told only to a session whose level lets it through', async (t) => {
  const seen = sessions.map(({ client }) => recordNotifications(client));
  const warnings = (i: number) =>
    seen[i]!.filter((n) => n.notification.method === 'notifications/message').map((n) => (n.notification as LoggingMessageNotification).params);
  // stdio wants errors only; HTTP warnings and worse.
  await sessions[0]!.client.setLoggingLevel('error');
  await sessions[1]!.client.setLoggingLevel('warning');
  for (const { client } of sessions) await client.readResource({ uri: 'world://events' });
  // Thirty answered commands, thirty `command` records: three times what the history keeps.
  for (let i = 0; i < 30; i++) t.equal((await b.cmd('pause')).status, 200);
  for (const { client } of sessions) {
    const read = JSON.parse(((await client.readResource({ uri: 'world://events' })).contents[0] as { text: string }).text);
    t.match(read, { gap: { from: Number, to: Number } }, 'the read says which events are gone');
  }
  await until(() => warnings(1).length > 0, 5_000, 'the warning');
  t.match(warnings(1)[0], {
    level: 'warning',
    logger: 'gcb-mcp',
    data: /world:\/\/events: the bridge no longer holds events \d+\.\.\d+ .*read the world again/,
  });
  t.same(warnings(0), [], 'a session at level error is not told a warning');
});
