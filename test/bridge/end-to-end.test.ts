import t from 'tap';
import { COUNTER } from '../fixtures/tiny-game.ts';
import { startTestBridge } from '../helpers/bridge.ts';

t.test('the whole path: health, capabilities, a game-thread command, a pool command', async (t) => {
  const b = await startTestBridge(t);
  const health = await b.fetch('/health');
  t.equal(health.status, 200);
  const body = (await health.json()) as any;
  t.match(body, {
    ok: true,
    mod_version: /^\d+\.\d+\.\d+$/,
    game_version: 'tiny-1.0.0',
    engine_version: process.version,
    multi_agent: false,
    scenario: 'sandbox',
    agent_count: 1,
    enabled: true,
  });
  t.match(body.game_assembly_sha256, /^[0-9a-f]{64}$/);
  t.type(body.tick, 'number');

  const caps = (await (await b.fetch('/capabilities')).json()) as any;
  t.equal(caps.mod_version, body.mod_version);
  const names = caps.commands.map((c: { name: string }) => c.name);
  t.ok(names.includes('get_world_state') && names.includes('health'));
  for (const descriptor of caps.commands) {
    t.equal(descriptor.schema.$schema, 'https://json-schema.org/draft/2020-12/schema', `${descriptor.name} schema is 2020-12`);
    t.equal(descriptor.schema.additionalProperties, false);
  }

  const world = await b.cmd('get_world_state');
  t.equal(world.status, 200);
  t.match(world.body, { ok: true, result: { width: 128, height: 128, paused: false }, tick: Number });
  const who = await b.cmd('whoami');
  t.match(who.body.result, { agent_id: 'legacy', role: 'god', claimed_kingdom_id: null });
  const viaCmd = await b.cmd('health');
  t.match(viaCmd.body, { ok: true, result: { ok: true, agent_count: 1 } });
  t.ok(world.headers.get('x-request-id'), 'every response carries X-Request-Id');
  const echoed = await b.fetch('/health', { headers: { 'x-request-id': 'trace-42' } });
  t.equal(echoed.headers.get('x-request-id'), 'trace-42', "the client's request id is echoed");
  t.ok(
    b.logs.some((line) => line.rid === 'trace-42' && line.path === '/health'),
    'and logged',
  );
});

t.test('the tick in every envelope comes from shared memory and advances with frames', async (t) => {
  const b = await startTestBridge(t);
  const first = (await b.cmd('get_world_state')).body.tick;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const second = (await b.cmd('get_world_state')).body.tick;
  t.ok(second > first, `tick advanced ${first} → ${second}`);
});

t.test('pause and resume, and the startup window rule', async (t) => {
  const counters = new SharedArrayBuffer(32);
  const b = await startTestBridge(t, { gameOptions: { counters } });
  t.same((await b.cmd('pause')).body.result, { previous_paused: false, paused: true });
  const paused = (await b.cmd('get_world_state')).body;
  const later = (await b.cmd('get_world_state')).body;
  t.equal(paused.result.paused, true);
  t.equal(later.result.tick, paused.result.tick, 'a paused world does not tick');
  t.same((await b.cmd('resume')).body.result, { previous_paused: true, paused: false });
  t.equal(new Int32Array(counters)[COUNTER.pause], 1);
  const ui = (await b.cmd('get_ui_state')).body.result;
  t.same(
    ui,
    { window_active: false, current_window: null, config_paused: false, effective_paused: false, world_loading: false },
    'suppress_startup_window = true (default): no window',
  );
  t.same((await b.cmd('dismiss_window')).body.result, { dismissed: false, window: null });
});

t.test('the frame loop keeps to [Game] fps', async (t) => {
  const { tempDir, writeConfig } = await import('../helpers/bridge.ts');
  const dir = tempDir();
  writeConfig(dir, { fps: 30 });
  const counters = new SharedArrayBuffer(32);
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { counters } });
  const view = new Int32Array(counters);
  const before = Atomics.load(view, COUNTER.updates);
  const started = Date.now();
  // keep the main loop and the game thread busy meanwhile: late timers must not add frames
  while (Date.now() - started < 2000) await b.cmd('get_ui_state');
  const rate = (Atomics.load(view, COUNTER.updates) - before) / ((Date.now() - started) / 1000);
  t.ok(rate > 12 && rate <= 31.5, `${rate.toFixed(1)} frames/s at fps 30`);
});
