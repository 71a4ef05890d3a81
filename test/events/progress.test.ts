// decisions §14, progress over HTTP: a POST /cmd with a Progress-Token gets `progress` events on its
// own agent's GET /events streams that name the kind, while the command runs: step (ticks), a pulsed
// invoke_power (pulses), batch (items), generate_world, load_world and save_world (phases). Never
// on another agent's stream, a read_all holder's, a stream without a kinds filter, nor in
// recv_events; no seq, no id: line; at least 100 ms apart; none after the answer; a malformed token
// is 400 BAD_ARGS before the body is read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { rawRequest, startTestBridge, tempDir, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { agent, token } from '../multi-agent/helpers.ts';
import { RESEARCH_GAME } from '../research/helpers.ts';
import { openSse, type SseClient, type SseFrame } from './helpers.ts';

// Real bridges on a loaded machine.
t.setTimeout(180_000);

const MS_PER_TICK = 5;
const PLAYER = 'ares';
const GOD = 'zeus';
const OBSERVER = 'argus';

/** A lockstep research bridge in multi-agent mode: a faction player, a god and an observer. */
async function startResearchAgents(t: Test, options: { msPerTick: number; timings?: Record<string, number> }): Promise<TestBridge> {
  const dir = tempDir('gcb-progress-');
  writeConfig(dir, { clock: 'lockstep' });
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({ scenario: 'sandbox', agents: [agent(GOD, 'god'), agent(PLAYER, 'faction_player'), agent(OBSERVER, 'observer')] }),
  );
  return startTestBridge(t, { game: RESEARCH_GAME, gameOptions: { msPerTick: options.msPerTick }, configDir: dir, timings: options.timings ?? {} });
}

const as = (id: string, progressToken?: string) => ({
  headers: { authorization: `Bearer ${token(id)}`, ...(progressToken === undefined ? {} : { 'progress-token': progressToken }) },
});

/** A stream of `id`'s, kinds as given (null: no filter). */
const stream = (b: TestBridge, id: string | null, kinds: string | null) =>
  openSse(b.bridge.port, kinds === null ? '/events' : `/events?kinds=${kinds}`, { token: id === null ? b.token : token(id) });

const progressFrames = (s: SseClient): SseFrame[] => s.frames.filter((f) => f.event === 'progress');
const progressOf = (s: SseClient, progressToken: string) =>
  progressFrames(s)
    .map((f) => JSON.parse(f.data!) as Record<string, any>)
    .filter((e) => e.progress_token === progressToken);

/**
 * Resolves once `s` has the `command` audit record of `name` number `nth` (counted on that stream):
 * everything the hub offered that stream before the answer (its progress) is in by then.
 */
const answered = (s: SseClient, name: string, nth = 1) => {
  let seen = 0;
  return s.waitFor(
    (f) => {
      if (f.event !== 'command' || JSON.parse(f.data!).name !== name) return false;
      seen++;
      return seen >= nth;
    },
    20_000,
    `the command record of ${name}`,
  );
};

t.test('one research bridge: each command kind, the audience, the rate', async (t) => {
  const b = await startResearchAgents(t, { msPerTick: MS_PER_TICK });
  await b.cmd('spawn', { entity_id: 'walker', x: 5, y: 5, count: 8 }, as(GOD));

  await t.test("step: ticks done of ticks, to the caller's own stream that names the kind, and nowhere else", async (t) => {
    const own = await stream(b, PLAYER, 'progress,command');
    const ownUnfiltered = await stream(b, PLAYER, null);
    const ownTicks = await stream(b, PLAYER, 'ticked');
    const god = await stream(b, GOD, 'progress,command');
    const observer = await stream(b, OBSERVER, 'progress,command');
    t.teardown(() => [own, ownUnfiltered, ownTicks, god, observer].forEach((s) => s.close()));
    const seqBefore = Number(own.headers['x-event-seq']);

    const answer = await b.cmd('step', { ticks: 100 }, as(PLAYER, 'step-1'));
    t.equal(answer.status, 200);
    const reached = answer.body.result.tick;
    await Promise.all([answered(own, 'step'), answered(ownUnfiltered, 'step'), answered(god, 'step'), answered(observer, 'step')]);
    await ownTicks.waitFor((f) => f.event === 'ticked' && JSON.parse(f.data!).tick === reached, 10_000, 'the last tick of the step');

    const events = progressOf(own, 'step-1');
    t.ok(events.length >= 2, `several reports over a step of about ${100 * MS_PER_TICK} ms (${events.length})`);
    t.same(
      events.map((e) => Object.keys(e).sort()),
      events.map(() => ['at_utc', 'done', 'kind', 'kingdom_ids', 'name', 'progress_token', 'tick', 'total']),
      'no seq (progress is live only), no phase (a step has none)',
    );
    t.ok(
      events.every((e) => e.kind === 'progress' && e.progress_token === 'step-1' && e.name === 'step' && e.total === 100 && e.kingdom_ids.length === 0),
      'kind, token, name, total and no kingdom',
    );
    t.ok(
      events.every((e, i) => i === 0 || e.done > events[i - 1]!.done),
      'done grows',
    );
    t.ok(events[0]!.done >= 1 && events.at(-1)!.done <= 100);
    t.ok(
      events.every((e) => e.tick - answer.body.result.tick_before === e.done),
      "each report's tick is the tick its done reached",
    );
    t.ok(
      progressFrames(own).every((f) => f.id === undefined),
      'an SSE frame with no id: line',
    );
    t.same(progressFrames(ownUnfiltered), [], 'a stream without kinds= never gets progress (clients of v0.5 see nothing new)');
    t.same(progressFrames(ownTicks), [], 'nor a stream whose kinds= does not name it');
    t.same(progressFrames(god), [], "a god's stream never sees another agent's progress");
    t.same(progressFrames(observer), [], "nor an observer's (read_all)");

    const recv = await b.cmd('recv_events', { since_seq: seqBefore, max: 1000 }, as(PLAYER));
    t.notOk(
      recv.body.result.items.some((e: { kind: string }) => e.kind === 'progress'),
      'never in recv_events',
    );
    const filtered = await b.cmd('recv_events', { since_seq: 0, kinds: ['progress'] }, as(PLAYER));
    t.equal(filtered.status, 200, 'recv_events accepts the kind (it is in event_kinds)');
    t.equal(filtered.body.result.count, 0, 'and has none of it');
    const all = await b.cmd('recv_events', { since_seq: 0, max: 1000 }, as(GOD));
    const seqs = all.body.result.items.map((e: { seq: number }) => e.seq);
    t.ok(
      seqs.every((seq: number, i: number) => i === 0 || seq === seqs[i - 1] + 1),
      'progress takes no seq: the history has no hole',
    );
    t.notOk('gap' in all.body.result);
    const caps = (await (await b.fetch('/capabilities', as(GOD))).json()) as { event_kinds: string[] };
    t.ok(caps.event_kinds.includes('progress'), '/capabilities lists the kind');
  });

  await t.test('rate: a long step reports at most 10 a second, each at least 100 ms after the last', async (t) => {
    const own = await stream(b, PLAYER, 'progress,command');
    t.teardown(() => own.close());
    const answer = await b.cmd('step', { ticks: 300 }, as(PLAYER, 'long-step'));
    t.equal(answer.status, 200);
    await answered(own, 'step');
    const events = progressOf(own, 'long-step');
    const at = events.map((e) => Date.parse(e.at_utc));
    const span = at.at(-1)! - at[0]!;
    t.ok(events.length >= 3, `reports kept coming over a step of about ${300 * MS_PER_TICK} ms (${events.length})`);
    t.ok(
      at.every((ms, i) => i === 0 || ms - at[i - 1]! >= 100),
      `each report at least 100 ms after the one before (${at.map((ms, i) => (i === 0 ? 0 : ms - at[i - 1]!)).join(', ')})`,
    );
    t.ok(events.length <= 1 + span / 100, `${events.length} reports over ${span} ms: at most 10 a second`);
  });

  await t.test('a pulsed invoke_power: pulses applied of pulses', async (t) => {
    const own = await stream(b, GOD, 'progress,command');
    t.teardown(() => own.close());
    // Under lockstep a pulsed run pulses once a tick of a step, and answers once it has pulsed.
    const run = b.cmd('invoke_power', { power_id: 'drop', x: 1, y: 1, pulses: 60 }, as(GOD, 'pulses-1'));
    await b.cmd('step', { ticks: 80 }, as(GOD));
    const answer = await run;
    t.equal(answer.status, 200);
    t.equal(answer.body.result.pulses_applied, 60);
    await answered(own, 'invoke_power');
    const events = progressOf(own, 'pulses-1');
    t.ok(events.length >= 2, `several reports over 60 pulses (${events.length})`);
    for (const event of events) t.match(event, { name: 'invoke_power', total: 60 });
    t.ok(
      events.every((e, i) => e.done >= 1 && e.done <= 60 && (i === 0 || e.done > events[i - 1]!.done)),
      'done grows within 1..60',
    );
    t.same(
      progressOf(own, 'pulses-1').filter((e) => e.name === 'step'),
      [],
      'the step without a token reported nothing',
    );
  });

  await t.test('batch: items run of items', async (t) => {
    const own = await stream(b, GOD, 'progress,command');
    t.teardown(() => own.close());
    const commands = [{ name: 'world_hash' }, { name: 'get_world_state' }, { name: 'world_hash' }];
    const answer = await b.cmd('batch', { commands }, as(GOD, 'batch-1'));
    t.equal(answer.status, 200);
    await answered(own, 'batch');
    const events = progressOf(own, 'batch-1');
    t.ok(events.length >= 1);
    t.match(events[0], { name: 'batch', done: 1, total: 3 }, 'the first report goes at once');
  });

  await t.test('generate_world: its phases, by number and name', async (t) => {
    const own = await stream(b, GOD, 'progress,command');
    t.teardown(() => own.close());
    const answer = await b.cmd('generate_world', { zone_x: 2, zone_y: 2, seed: 9 }, as(GOD, 'gen-1'));
    t.equal(answer.status, 200);
    await answered(own, 'generate_world');
    const events = progressOf(own, 'gen-1');
    t.ok(events.length >= 1);
    t.match(events[0], { name: 'generate_world', done: 1, total: 2, phase: 'generate' });
    for (const event of events) t.match(event.phase, /^(generate|install)$/);
  });

  await t.test('a request without the header gets none, and the same token twice is two runs', async (t) => {
    const own = await stream(b, PLAYER, 'progress,command');
    t.teardown(() => own.close());
    await b.cmd('step', { ticks: 60 }, as(PLAYER));
    await b.cmd('step', { ticks: 60 }, as(PLAYER, 'again'));
    await b.cmd('step', { ticks: 60 }, as(PLAYER, 'again'));
    await answered(own, 'step', 3);
    const frames = progressFrames(own).map((f) => JSON.parse(f.data!));
    t.ok(
      frames.every((e) => e.progress_token === 'again'),
      'only the runs that asked',
    );
    t.equal(frames.filter((e) => e.done === 1).length, 2, 'both runs reported, each from its first tick');
  });
});

t.test('none after the answer: a step answered by the backstop reports nothing more while it runs on', async (t) => {
  const dir = tempDir('gcb-progress-');
  writeConfig(dir, { clock: 'lockstep' });
  // The backstop answers at about 300 ms; the step of 150 ticks of 10 ms runs about 1.5 s.
  const b = await startTestBridge(t, {
    game: RESEARCH_GAME,
    gameOptions: { msPerTick: 10 },
    configDir: dir,
    timings: { queueDeadlineMs: 200, handlerBackstopMs: 300 },
  });
  const own = await openSse(b.bridge.port, '/events?kinds=progress,command', { token: b.token });
  t.teardown(() => own.close());
  const answer = await b.cmd('step', { ticks: 150 }, { headers: { 'progress-token': 'cut' } });
  const answeredAt = Date.now();
  t.equal(answer.status, 504, 'the backstop answered');
  t.equal(answer.body.error.code, 'MAIN_THREAD_TIMEOUT');
  // The tick is published after every tick the step runs; the step goes on to its end.
  for (let tick = 0; tick < 150;) tick = ((await (await b.fetch('/health')).json()) as { tick: number }).tick;
  // Its record comes after anything the hub offered the stream before it.
  t.equal((await b.cmd('world_hash')).body.result.tick, 150, 'the step ran on to its end');
  await answered(own, 'world_hash');
  const events = progressOf(own, 'cut');
  t.ok(events.length >= 1, 'it reported while it was unanswered');
  t.ok(
    events.every((e) => e.done < 100),
    `nothing of the ticks run after the answer (last done ${events.at(-1)?.done})`,
  );
  t.ok(
    events.every((e) => Date.parse(e.at_utc) <= answeredAt),
    'every report was made before the answer came',
  );
});

t.test('save_world and load_world: their phases; a malformed token is 400 BAD_ARGS before the body is read', async (t) => {
  const dir = tempDir('gcb-progress-');
  writeConfig(dir);
  const b = await startTestBridge(t, { game: SANDBOX_GAME, configDir: dir });
  const own = await openSse(b.bridge.port, '/events?kinds=progress,command', { token: b.token });
  t.teardown(() => own.close());

  const saved = await b.cmd('save_world', { folder: 'progress' }, { headers: { 'progress-token': 'save-1' } });
  t.equal(saved.status, 200);
  await answered(own, 'save_world');
  const saving = progressOf(own, 'save-1');
  t.ok(saving.length >= 1);
  t.match(saving[0], { name: 'save_world', done: 1, total: 3, phase: 'copy' }, 'the frame reports its phase');
  for (const event of saving) t.match(event.phase, /^(copy|encode|write)$/);

  const loaded = await b.cmd('load_world', { path: 'progress' }, { headers: { 'progress-token': 'load-1' } });
  t.equal(loaded.status, 200);
  await answered(own, 'load_world');
  const loading = progressOf(own, 'load-1');
  t.ok(loading.length >= 1);
  t.match(loading[0], { name: 'load_world', done: 1, total: 3, phase: 'read' }, 'the pool step reports its phase');
  for (const event of loading) t.match(event.phase, /^(read|decode|install)$/);

  const post = (progressToken: string, body = 'this is not JSON') =>
    rawRequest(b.bridge.port, {
      method: 'POST',
      path: '/cmd',
      headers: {
        authorization: `Bearer ${b.token}`,
        'content-type': 'application/json',
        'progress-token': progressToken,
        'content-length': Buffer.byteLength(body),
      },
      body,
    });
  for (const bad of ['', 'a'.repeat(65), 'two words', 'quote"d', 'slash/ed', 'ümlaut', 'a+b']) {
    const answer = await post(bad);
    t.equal(answer.status, 400, JSON.stringify(bad));
    const error = JSON.parse(answer.body).error;
    t.equal(error.code, 'BAD_ARGS');
    t.match(error.message, /^Progress-Token must be 1 to 64 characters of A-Z a-z 0-9 \. _ ~ -/, 'the token is refused, not the body: it was never read');
  }
  const longest = await post('A-z0.9_~'.repeat(8), JSON.stringify({ name: 'world_hash' }));
  t.equal(longest.status, 200, '64 characters of the allowed ones are a token');
});
