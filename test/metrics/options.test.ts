// Metrics off (startBridge({ metrics: false })): no GET /metrics (404 like any unknown path), so a
// benchmark can measure what the series cost; and in multi-agent mode /metrics needs read_all and
// counts requests per agent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestBridge, tempDir } from '../helpers/bridge.ts';

const secret = (id: string) => `${id}-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789`;

t.test('metrics: false', async (t) => {
  const b = await startTestBridge(t, { metrics: false });
  const res = await b.fetch('/metrics');
  t.equal(res.status, 404);
  t.equal(((await res.json()) as any).error.code, 'UNKNOWN_COMMAND');
  t.equal((await b.cmd('get_world_state')).status, 200);
});

t.test('multi-agent: read_all only, and per-agent series', async (t) => {
  const dir = tempDir('gcb-metrics-agents-');
  writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\ntoken = "${'T'.repeat(48)}"\n`);
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      scenario: 'coop',
      agents: [
        { id: 'owl', role: 'observer', token: secret('owl') },
        { id: 'athena', role: 'faction_player', token: secret('athena') },
      ],
    }),
  );
  const b = await startTestBridge(t, { configDir: dir });
  const get = (id: string) => b.fetch('/metrics', { headers: { authorization: `Bearer ${secret(id)}` } });
  const denied = await get('athena');
  t.equal(denied.status, 403);
  t.match(((await denied.json()) as any).error, { code: 'PERMISSION_DENIED', message: /read_all/ });
  const res = await get('owl');
  t.equal(res.status, 200);
  const text = await res.text();
  t.match(text, /^gcb_agent_requests_total\{agent="athena",code="PERMISSION_DENIED"\} 1$/m);
  t.notMatch(text, /ABCDEFGHIJKLMNOPQRSTUVWXYZ/, 'no token');
});
