// decisions §14, over stdio and Streamable HTTP: the bridge stops, and starts again on its port with
// another game module. Each session hears that the bridge is gone and back (notifications/message,
// filtered by the level logging/setLevel asked for) and gets tools/list_changed within 2 s of the
// new bridge, then lists its commands.
import t from 'tap';
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, until } from '../helpers/bridge.ts';
import { bothTransports, mcpServer, recordNotifications } from './helpers.ts';

t.setTimeout(180_000);

t.test('another game behind the same port: the bridge gone and back, and the new tools', async (t) => {
  const first = await startTestBridge(t);
  const { port } = first.bridge;
  const mcp = await mcpServer(t, first.bridge.url);
  const sessions = await bothTransports(t, mcp, first.bridge.url, first.token);
  const before = (await sessions[0]!.client.listTools()).tools.length;
  t.ok(before < 39, `the fixture game enables ${before - 1} commands`);
  const seen = sessions.map(({ client }) => recordNotifications(client));
  // stdio asks for warnings and worse only; HTTP for everything (no setLevel).
  await sessions[0]!.client.setLoggingLevel('warning');
  const messages = (index: number) =>
    seen[index]!.filter((n) => n.notification.method === 'notifications/message').map((n) => (n.notification as LoggingMessageNotification).params);

  await first.bridge.close();
  await until(() => sessions.every((_, i) => messages(i).some((m) => /the bridge is gone/.test(String(m.data)))), 10_000, 'the bridge gone');
  t.match(messages(1)[0], { level: 'error', logger: 'gcb-mcp', data: /the bridge is gone .*tool calls fail until it is back/ });

  const second = await startTestBridge(t, { game: SANDBOX_GAME, port, configDir: first.configDir });
  const started = Date.now();
  const changed = (index: number) => seen[index]!.find((n) => n.notification.method === 'notifications/tools/list_changed');
  await until(() => sessions.every((_, i) => changed(i) !== undefined), 10_000, 'tools/list_changed');
  for (const [i, { via, client }] of sessions.entries()) {
    const after = changed(i)!.at - started;
    t.ok(after <= 2_000, `${via}: told ${after} ms after the new bridge started`);
    t.equal((await client.listTools()).tools.length, 39, `${via}: the sandbox's tools`);
  }
  await until(() => messages(1).some((m) => /answers again/.test(String(m.data))), 5_000, 'the bridge back');
  t.notOk(
    messages(0).some((m) => m.level === 'notice'),
    'stdio asked for warnings and worse: no notice',
  );
  t.equal(second.bridge.port, port);
});
