// decisions §12, episodes over HTTP and `gcb replay`: a record's file (mode, header, a line per
// accepted command at its place, a hash line after each step, the end line), a replay that matches
// on a bridge of its own and on a second bridge recording again (the same lines but for `agent`),
// a changed hash named at its tick with both hashes, a changed start world named at the header's
// tick, and the refusals: one record at a time, no record running, a confined name, a faction
// player, a world swap ending the record.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge, tempDir, until, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { gcbIn } from '../gcb/helpers.ts';

// Real bridges (the sandbox world), several per file, on a loaded machine.
t.setTimeout(240_000);

const SEED = 4242;

async function sandbox(t: Test): Promise<TestBridge & { ok(name: string, args?: unknown): Promise<any> }> {
  const dir = tempDir('gcb-episodes-');
  writeConfig(dir, { clock: 'lockstep' });
  const b = await startTestBridge(t, { game: SANDBOX_GAME, configDir: dir });
  return Object.assign(b, {
    async ok(name: string, args?: unknown) {
      const answer = await b.cmd(name, args);
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.result;
    },
  });
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A short episode of the kinds a replay must repeat: actions, a refused one, steps, a savepoint and a rewind. */
async function playEpisode(t: Test, b: Awaited<ReturnType<typeof sandbox>>): Promise<void> {
  await b.ok('spawn', { entity_id: 'human', x: 40, y: 40, count: 4 });
  await b.ok('step', { ticks: 30 });
  await b.ok('paint_tile', { x: 50, y: 50, tile_id: 'sand', radius: 2 });
  t.equal((await b.cmd('rewind', { id: 99 })).status, 422, 'a command the game refuses is recorded with its code');
  await b.ok('step', { ticks: 20 });
  const saved = await b.ok('savepoint');
  await b.ok('invoke_power', { power_id: 'rain', x: 60, y: 60 });
  await b.ok('step', { ticks: 25 });
  await b.ok('rewind', { id: saved.id });
  await b.ok('spawn', { entity_id: 'human', x: 70, y: 30, count: 2 });
  await b.ok('step', { ticks: 15 });
  // A pulsed run answers only once later steps ran: it starts, then the step runs its pulses.
  const pulsed = b.ok('invoke_power', { power_id: 'rain', x: 20, y: 20, pulses: 3 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await b.ok('step', { ticks: 5 });
  t.match(await pulsed, { pulses_applied: 3 }, 'the pulsed run ended within the step');
}

t.test('record_start ... record_stop writes the episode; gcb replay runs it again and every hash matches', async (t) => {
  const b = await sandbox(t);
  await b.ok('generate_world', { zone_x: 2, zone_y: 2, seed: SEED });
  await b.ok('step', { ticks: 7 });
  const started = await b.ok('record_start', { name: 'run1' });
  const start = await b.ok('world_hash');
  t.same(started, { name: 'run1', path: 'episodes/run1.jsonl', tick: start.tick, hash: start.hash });
  await playEpisode(t, b);
  const end = await b.ok('world_hash');
  const stopped = await b.ok('record_stop');
  t.match(stopped, { name: 'run1', path: 'episodes/run1.jsonl', tick: end.tick, hash: end.hash });

  const file = join(b.configDir, 'episodes', 'run1.jsonl');
  t.equal(statSync(file).mode & 0o777, 0o600, 'the record is mode 0600');
  const [header, ...rest] = lines(file);
  t.same(header, { format: 1, mod_version: header!.mod_version, game: header!.game, seed: SEED, width: 128, height: 128, tick: 7, hash: start.hash });
  t.equal(rest.length + 1, stopped.lines, 'record_stop counts every line');
  const commands = rest.filter((line) => 'name' in line);
  t.same(
    commands.map((line) => line.name),
    ['spawn', 'step', 'paint_tile', 'rewind', 'step', 'savepoint', 'invoke_power', 'step', 'rewind', 'spawn', 'step', 'invoke_power', 'step'],
  );
  t.match(commands[0], { tick: 7, order: 0, agent: 'legacy', args: { entity_id: 'human', x: 40, y: 40, count: 4 }, code: null });
  t.match(commands[2], { tick: 37, order: 0, name: 'paint_tile' });
  t.match(commands[3], { tick: 37, order: 1, name: 'rewind', args: { id: 99 }, code: 'GAME_REJECTED' });
  t.match(rest.at(-1), { tick: end.tick, hash: end.hash, end: 'record_stop', lines: stopped.lines });
  const afterFirstStep = rest[rest.indexOf(commands[1]!) + 1];
  t.match(afterFirstStep, { tick: 37, hash: /^[0-9a-f]{16}$/ }, 'a hash line follows each step');

  const replayed = await gcbIn(['replay', file]);
  t.equal(replayed.code, 0, replayed.stderr);
  t.match(replayed.stdout, /^replay matched: 13 commands, \d+ hashes, ticks 7 to \d+/);
});

/** Records a short episode on a fresh lockstep sandbox; answers the bridge and the file. */
async function recorded(t: Test, name = 'base'): Promise<{ b: Awaited<ReturnType<typeof sandbox>>; file: string }> {
  const b = await sandbox(t);
  await b.ok('generate_world', { zone_x: 2, zone_y: 2, seed: SEED });
  await b.ok('record_start', { name });
  await playEpisode(t, b);
  await b.ok('record_stop');
  return { b, file: join(b.configDir, 'episodes', `${name}.jsonl`) };
}

t.test('record, then replay while recording again: the two records have the same lines but for agent', async (t) => {
  const { file } = await recorded(t);
  const other = await sandbox(t);
  const replayed = await gcbIn(['replay', file, '--url', other.bridge.url, '--record', 'again'], { env: { GCB_TOKEN: other.token } });
  t.equal(replayed.code, 0, replayed.stderr);
  const strip = ({ agent: _agent, ...rest }: Record<string, unknown>) => rest;
  const again = lines(join(other.configDir, 'episodes', 'again.jsonl'));
  t.same(again.map(strip), lines(file).map(strip));
  t.ok(
    again.every((line) => !('name' in line) || line.agent === 'legacy'),
    'agent names who ran each command',
  );
});

t.test('a replaying bridge that handed out savepoint ids already maps the record’s ids to its own', async (t) => {
  const { file } = await recorded(t);
  const other = await sandbox(t);
  await other.ok('savepoint');
  await other.ok('savepoint_drop', { id: 1 });
  const replayed = await gcbIn(['replay', file, '--url', other.bridge.url, '--record', 'mapped'], { env: { GCB_TOKEN: other.token } });
  t.equal(replayed.code, 0, replayed.stderr);
  const mapped = lines(join(other.configDir, 'episodes', 'mapped.jsonl'));
  t.match(
    mapped.filter((line) => line.name === 'savepoint' || (line.name === 'rewind' && line.code === null)),
    [
      { name: 'savepoint', id: 2 },
      { name: 'rewind', args: { id: 2 } },
    ],
    "the savepoint line carries this bridge's id, and the rewind went to it",
  );
});

t.test('a changed hash is named at its tick with both hashes; a changed start world at the header’s tick', async (t) => {
  const { b, file } = await recorded(t);
  const original = readFileSync(file, 'utf8').split('\n');
  const hashIndex = original.findIndex((line, i) => i > 0 && /^\{"tick":\d+,"hash":"[0-9a-f]{16}"\}$/.test(line));
  const hashLine = JSON.parse(original[hashIndex]!) as { tick: number; hash: string };
  const changed = [...original];
  changed[hashIndex] = JSON.stringify({ tick: hashLine.tick, hash: '0123456789abcdef' });
  const tampered = join(b.configDir, 'tampered.jsonl');
  writeFileSync(tampered, changed.join('\n'));
  const onB = ['--url', b.bridge.url];
  const env = { env: { GCB_TOKEN: b.token } };
  const run = await gcbIn(['replay', tampered, ...onB], env);
  t.equal(run.code, 6, 'a difference exits 6');
  t.equal(run.stderr, `gcb replay: differs at tick ${hashLine.tick} (a hash line): recorded 0123456789abcdef, replay ${hashLine.hash}\n`);

  const header = JSON.parse(original[0]!) as Record<string, unknown>;
  const otherStart = [...original];
  otherStart[0] = JSON.stringify({ ...header, seed: SEED + 1 });
  const moved = join(b.configDir, 'other-start.jsonl');
  writeFileSync(moved, otherStart.join('\n'));
  const start = await gcbIn(['replay', moved, ...onB], env);
  t.equal(start.code, 6);
  t.match(
    start.stderr,
    new RegExp(`^gcb replay: differs at tick ${String(header.tick)} \\(the record's start\\): recorded ${String(header.hash)}, replay [0-9a-f]{16}\\n$`),
  );
});

t.test('a record that cannot be replayed is refused in one line before anything runs', async (t) => {
  const { b, file } = await recorded(t);
  const text = readFileSync(file, 'utf8');
  const [headerText, ...rest] = text.trimEnd().split('\n');
  const header = JSON.parse(headerText!) as Record<string, unknown>;
  const dir = tempDir('gcb-bad-records-');
  const cases: Array<[string, string | null, RegExp]> = [
    ['missing', null, /no such file/],
    ['truncated', text.slice(0, Math.floor(text.length * 0.6)), /cut off|cut short/],
    ['no end line', `${[headerText, ...rest.slice(0, -1)].join('\n')}\n`, /no end line: it was cut short/],
    ['not JSON', 'PK\u0003\u0004 this is a zip\n', /line 1 is not JSON/],
    ['empty', '', /empty/],
    ['another format', `${[JSON.stringify({ ...header, format: 2 }), ...rest].join('\n')}\n`, /format 2.*replays records of format 1/],
    ['another version', `${[JSON.stringify({ ...header, mod_version: '0.9.1' }), ...rest].join('\n')}\n`, /mod_version 0\.9\.1/],
    ['a line of no known shape', `${[headerText, '{"what":1}', ...rest].join('\n')}\n`, /line 2 is neither a command line/],
  ];
  const before = await b.ok('world_hash');
  for (const [what, content, message] of cases) {
    const path = join(dir, `${what.replaceAll(' ', '-')}.jsonl`);
    if (content !== null) writeFileSync(path, content);
    const run = await gcbIn(['replay', path, '--url', b.bridge.url], { env: { GCB_TOKEN: b.token } });
    t.equal(run.code, 5, `${what}: exit 5`);
    t.match(run.stderr, message, what);
    t.equal(run.stderr.trimEnd().split('\n').length, 1, `${what}: one line`);
    t.equal(run.stdout, '', `${what}: nothing else`);
  }
  t.same(await b.ok('world_hash'), before, 'the bridge at --url ran nothing');
});

t.test('one record at a time, record_stop with none, confined names, a world swap ends the record', async (t) => {
  const b = await sandbox(t);
  await b.ok('record_start', { name: 'one' });
  const second = await b.cmd('record_start', { name: 'two' });
  t.equal(second.status, 422);
  t.match(second.body.error, { code: 'GAME_REJECTED', message: /a record is running \(episodes\/one\.jsonl\); record_stop it first/ });
  await b.ok('record_stop');
  const none = await b.cmd('record_stop');
  t.equal(none.status, 422);
  t.match(none.body.error.message, /no record is running: record_start/);

  for (const name of ['../escape', 'a/b', '.hidden', 'nul', 'x'.repeat(65), '']) {
    const answer = await b.cmd('record_start', { name });
    t.equal(answer.status, 400, `name ${JSON.stringify(name)} is refused`);
    t.equal(answer.body.error.code, 'BAD_ARGS');
  }
  const inBatch = await b.cmd('batch', { commands: [{ name: 'record_stop' }] });
  t.equal(inBatch.status, 400, 'record_stop is no batch item');

  await b.ok('record_start', { name: 'swapped' });
  await b.ok('spawn', { entity_id: 'human', x: 10, y: 10, count: 1 });
  await b.ok('generate_world', { zone_x: 2, zone_y: 2, seed: 7 });
  const events = (await b.ok('recv_events', { kinds: ['record_stopped'] })).items;
  t.match(events.at(-1), { kind: 'record_stopped', name: 'swapped', path: 'episodes/swapped.jsonl', reason: 'world_swapped' });
  // decisions §15: written off the game thread, the end line reaches the file just after the swap frame.
  const file = join(b.configDir, 'episodes', 'swapped.jsonl');
  await until(() => readFileSync(file, 'utf8').includes('"end":"world_swapped"'), 10_000, 'the end line to be written');
  const swapped = lines(file);
  t.match(swapped.at(-1), { end: 'world_swapped' });
  t.notOk(
    swapped.some((line) => line.name === 'generate_world'),
    'the swap is not a line: the record covers one world',
  );
  t.equal((await b.cmd('record_stop')).status, 422, 'and no record runs after it');
});

t.test('a realtime record: hash lines every 60 ticks, and it replays under lockstep', async (t) => {
  const dir = tempDir('gcb-episodes-rt-');
  writeConfig(dir, { fps: 60 });
  const b = await startTestBridge(t, { game: SANDBOX_GAME, configDir: dir });
  const ok = async (name: string, args?: unknown) => {
    const answer = await b.cmd(name, args);
    if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.result;
  };
  await ok('generate_world', { zone_x: 2, zone_y: 2, seed: SEED });
  await ok('record_start', { name: 'realtime' });
  const startTick = (await ok('world_hash')).tick as number;
  for (let i = 0; i < 4; i++) {
    await ok('spawn', { entity_id: 'human', x: 30 + i * 10, y: 40, count: 2 });
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  const until = Date.now() + 60_000;
  while ((await ok('world_hash')).tick < startTick + 130 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
  await ok('record_stop');
  const file = join(dir, 'episodes', 'realtime.jsonl');
  const hashTicks = lines(file)
    .slice(1, -1)
    .filter((line) => !('name' in line))
    .map((line) => line.tick as number);
  t.ok(hashTicks.length >= 2, `hash lines as the frames passed every 60th tick: ${hashTicks.join(', ')}`);
  let previous = startTick;
  for (const tick of hashTicks) {
    t.ok(Math.floor(tick / 60) > Math.floor(previous / 60), `tick ${tick} is the first frame's past a multiple of 60 after ${previous}`);
    previous = tick;
  }
  const replayed = await gcbIn(['replay', file]);
  t.equal(replayed.code, 0, replayed.stderr);
});
