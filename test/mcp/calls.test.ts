// decisions §14, a tool call over stdio and Streamable HTTP, against a bridge of a few lines that
// does at will what a real one does only under load (fake-bridge.ts):
// - progress: `_meta.progressToken` becomes a Progress-Token of the server's own, whose `progress`
//   events (on the credential's one GET /events?kinds=progress stream) come back as
//   notifications/progress, at most ten a second, each further than the last, none after the result;
// - cancellation: notifications/cancelled closes the HTTP request, and ends a BUSY wait so that no
//   further attempt is sent;
// - a BUSY retried is told as a warning (notifications/message).
import type { CallToolResult, LoggingMessageNotification, Progress } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { until } from '../helpers/bridge.ts';
import { FAKE_TOKEN, startFakeBridge } from './fake-bridge.ts';
import { bothTransports, mcpServer, recordNotifications } from './helpers.ts';

t.setTimeout(120_000);

const fake = await startFakeBridge(t);
const mcp = await mcpServer(t, fake.url);
const sessions = await bothTransports(t, mcp, fake.url, FAKE_TOKEN);
const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('progress: at most ten a second, rising, none after the result', async (t) => {
  fake.onWork((work) => {
    if (work.progressToken === undefined) return work.answer({ done: true });
    let done = 0;
    // 40 events 15 ms apart (600 ms), the answer, then 5 more that must not reach the client.
    const timer = setInterval(() => {
      done++;
      fake.progress({ progress_token: work.progressToken, name: 'work', done, total: 40 });
      if (done === 40) {
        clearInterval(timer);
        work.answer({ done: true });
        for (let late = 41; late <= 45; late++) fake.progress({ progress_token: work.progressToken, name: 'work', done: late, total: 45 });
      }
    }, 15);
  });
  for (const { via, client } of sessions) {
    const errors: Error[] = [];
    client.onerror = (error) => void errors.push(error);
    const seen: Array<{ at: number; progress: Progress }> = [];
    const started = Date.now();
    const result = (await client.callTool({ name: 'worldbox_work', arguments: {} }, undefined, {
      onprogress: (progress) => void seen.push({ at: Date.now(), progress }),
    })) as CallToolResult;
    const answered = Date.now();
    t.same(result.structuredContent, { done: true }, `${via}: the result`);
    const token = fake.works.at(-1)!.progressToken;
    t.match(token, /^[A-Za-z0-9._~-]{1,64}$/, `${via}: the bridge got a Progress-Token of the server's own`);
    const span = (answered - started) / 1_000;
    t.ok(seen.length >= 3 && seen.length <= Math.ceil(span * 10) + 1, `${via}: ${seen.length} notifications in ${span.toFixed(2)} s`);
    for (let i = 1; i < seen.length; i++) t.ok(seen[i]!.progress.progress > seen[i - 1]!.progress.progress, `${via}: rising`);
    // Sent at most every 100 ms; on arrival, a second may hold one more (what was sent at its edges).
    const densest = Math.max(...seen.map((s) => seen.filter((o) => o.at >= s.at && o.at < s.at + 1_000).length));
    t.ok(densest <= 11, `${via}: at most ten a second (${densest} in the densest second)`);
    t.match(seen[0]!.progress, { total: 40, message: /^work: \d+ of 40$/ });
    t.ok(
      seen.every((s) => s.progress.progress <= 40),
      `${via}: nothing of what came after the answer`,
    );
    await quiet(300);
    t.same(
      errors.filter((e) => /progress/i.test(e.message)),
      [],
      `${via}: no progress notification arrived after the result`,
    );
  }
  t.ok(fake.progressStreams() <= 2, 'one progress stream per credential (one in each gcb mcp process)');
});

t.test('cancelled: the HTTP request is closed, so a queued command never runs', async (t) => {
  fake.onWork(() => {}); // held: as a command queued behind a long step
  for (const { via, client } of sessions) {
    const before = fake.works.length;
    const abort = new AbortController();
    const call = client.callTool({ name: 'worldbox_work', arguments: {} }, undefined, { signal: abort.signal });
    await until(() => fake.works.length > before, 5_000, 'the request at the bridge');
    const work = fake.works.at(-1)!;
    abort.abort();
    await t.rejects(call, /abort/i, `${via}: the call ends`);
    const closed = await Promise.race([work.closed.then(() => true), quiet(3_000).then(() => false)]);
    t.ok(closed, `${via}: the bridge sees its client close the request`);
  }
});

t.test('cancelled while waiting out a BUSY: no further attempt; a BUSY retried is a warning', async (t) => {
  const warnings = sessions.map(({ client }) => recordNotifications(client));
  const messages = (i: number) =>
    warnings[i]!.filter((n) => n.notification.method === 'notifications/message').map((n) => (n.notification as LoggingMessageNotification).params);
  fake.onWork((work) => work.busy(2));
  for (const [i, { via, client }] of sessions.entries()) {
    const before = fake.works.length;
    const abort = new AbortController();
    const call = client.callTool({ name: 'worldbox_work', arguments: {} }, undefined, { signal: abort.signal });
    await until(() => messages(i).some((m) => /busy/.test(String(m.data))), 5_000, 'the warning');
    t.match(messages(i).at(-1), { level: 'warning', logger: 'gcb-mcp', data: /the bridge was busy: work is sent again \(retry 1\) in 2000 ms/ });
    abort.abort();
    await t.rejects(call, /abort/i);
    await quiet(3_000);
    t.equal(fake.works.length, before + 1, `${via}: the retry was never sent`);
  }
  // A BUSY retried, then the answer.
  fake.onWork((work) => (fake.works.filter((w) => w.args.once === true).length === 1 ? work.busy(1) : work.answer({ done: true })));
  const client = sessions[0]!.client;
  const result = (await client.callTool({ name: 'worldbox_work', arguments: { once: true } })) as CallToolResult;
  t.same(result.structuredContent, { done: true }, 'answered on the retry');
});
