// decisions §13: a quarter of `[Bridge] max_event_streams` (rounded down) is kept for agents with
// read_all, so two players each at their half (decisions §10) cannot lock out the god or an
// observer. Streams and waiting recv_events count alike. Over real HTTP, default settings (16).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir, until } from '../helpers/bridge.ts';
import { EVENT_COMMANDS, EVENT_GAME, openSse, type SseClient } from './helpers.ts';

const secret = (id: string) => `${id}-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789`;
const AGENTS = [
  { id: 'zeus', role: 'god' },
  { id: 'owl', role: 'observer' },
  { id: 'athena', role: 'faction_player' },
  { id: 'ares', role: 'faction_player' },
];

const dir = tempDir('gcb-events-reserve-');
writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(48)}"\n`);
writeFileSync(join(dir, 'agents.json'), JSON.stringify({ agents: AGENTS.map((a) => ({ ...a, token: secret(a.id) })) }));
const b = await startTestBridge(t, { configDir: dir, game: EVENT_GAME, commandModules: [EVENT_COMMANDS] });
const as = (id: string, name: string, args?: unknown) => b.cmd(name, args, { headers: { authorization: `Bearer ${secret(id)}` } });

async function open(id: string, count: number): Promise<SseClient[]> {
  const streams: SseClient[] = [];
  for (let i = 0; i < count; i++) streams.push(await openSse(b.bridge.port, '/events', { token: secret(id) }));
  for (const stream of streams) if (stream.status !== 200) await stream.ended;
  return streams;
}

const statuses = (streams: SseClient[]) => streams.map((s) => s.status);

t.test('two players at their half leave the kept quarter to the god and the observer', async (t) => {
  const athena = await open('athena', 9);
  t.same(statuses(athena), [...Array(8).fill(200), 503], 'athena: its half, 8 of 16');
  t.match(JSON.parse(athena[8]!.body).error, { code: 'BUSY', message: /agent 'athena' already holds 8 event streams, its share/ });

  const ares = await open('ares', 5);
  t.same(statuses(ares), [200, 200, 200, 200, 503], 'ares: only the 4 left of the 12 open to players');
  const kept = JSON.parse(ares[4]!.body).error;
  t.equal(kept.code, 'BUSY');
  t.match(kept.message, /the 12 event streams open to agents without read_all are all taken; the other 4 .*max_event_streams.* kept for agents with read_all/);
  t.equal(ares[4]!.headers['retry-after'], '1');
  const waiting = await as('ares', 'recv_events', { since_seq: b.bridge.stats().events.seq + 1000, wait_ms: 500 });
  t.equal(waiting.status, 503, 'a waiting recv_events of a player is refused the kept quarter too');
  t.match(waiting.body.error, { code: 'BUSY', message: /kept for agents with read_all/ });

  const zeus = await open('zeus', 2);
  t.same(statuses(zeus), [200, 200], 'the god still gets streams');
  const owlWaits = as('owl', 'recv_events', { since_seq: b.bridge.stats().events.seq, kinds: ['ping'], wait_ms: 20_000 });
  await until(() => b.bridge.stats().events.waiting === 1, 30_000, "the observer's recv_events to wait");
  const owl = await open('owl', 2);
  t.same(statuses(owl), [200, 503], 'the observer: a stream and a waiting recv_events fill the pool');
  t.match(JSON.parse(owl[1]!.body).error, { code: 'BUSY', message: /^all 16 event streams are taken \(\[Bridge\] max_event_streams/ });
  t.equal(b.bridge.stats().events.streams, 15);

  // A player's place given back goes to a player; nothing it holds reaches the kept quarter.
  athena[0]!.close();
  await until(() => b.bridge.stats().events.streams === 14, 5000, 'the closed stream to be let go');
  const again = await open('ares', 2);
  t.same(statuses(again), [200, 503]);
  t.equal((await as('zeus', 'emit_events', { kind: 'ping' })).status, 200);
  t.equal((await owlWaits).body.result.count, 1, "the observer's wait answers");
  for (const stream of [...athena, ...ares, ...zeus, ...owl, ...again]) stream.close();
});
