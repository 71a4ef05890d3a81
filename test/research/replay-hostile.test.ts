// decisions §15, `gcb replay` on crafted records, black-box: a record holding commands no record may
// hold (save_world, record_start), replayed with --url and a god's token, is refused in one line
// before anything runs (exit 5), and no save or record is written; so are a header tick above
// 1,000,000, ticks in all above --max-ticks, args nested 200,000 deep and a negative seed. An
// interrupted replay (SIGINT, SIGTERM) removes its temporary config dir and ends.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { tempDir } from '../helpers/bridge.ts';
import { GCB, ROOT, gcb, gcbIn } from '../gcb/helpers.ts';
import { agent, startAgents, token, type Agents } from '../multi-agent/helpers.ts';

t.setTimeout(300_000);

const SEED = 777;

async function ok(ma: Agents, name: string, args?: unknown): Promise<any> {
  const answer = await ma.as('dm', name, args);
  if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.result;
}

/** A lockstep sandbox with a god (dm), a short honest record of it, and the record's lines. */
async function recordedBridge(t: Test): Promise<{ ma: Agents; lines: string[]; env: { env: Record<string, string> }; url: string[] }> {
  const ma = await startAgents(t, { agents: [agent('dm', 'god')] }, { config: { clock: 'lockstep' } });
  await ok(ma, 'generate_world', { zone_x: 2, zone_y: 2, seed: SEED });
  await ok(ma, 'record_start', { name: 'honest' });
  await ok(ma, 'spawn', { entity_id: 'human', x: 40, y: 40, count: 3 });
  await ok(ma, 'step', { ticks: 10 });
  await ok(ma, 'record_stop');
  // The world moves on past the record's end: a replay that made its start world would change the hash.
  await ok(ma, 'step', { ticks: 3 });
  const lines = readFileSync(join(ma.b.configDir, 'episodes', 'honest.jsonl'), 'utf8')
    .trimEnd()
    .split('\n');
  return { ma, lines, env: { env: { GCB_TOKEN: token('dm') } }, url: ['--url', ma.b.bridge.url] };
}

/** The record with `extra` lines put before its end line. */
function withLines(lines: string[], extra: unknown[]): string {
  return `${[...lines.slice(0, -1), ...extra.map((line) => JSON.stringify(line)), lines.at(-1)].join('\n')}\n`;
}

/** The replay's temporary config dirs in `tmp` (tsx keeps its cache there too). */
const replayDirs = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith('gcb-replay-'));

const fileState = (path: string) => (existsSync(path) ? `${statSync(path).mtimeMs} ${readFileSync(path).toString('base64')}` : 'absent');

t.test('a record with save_world and record_start lines, replayed with --url and a god token: exit 5, nothing written', async (t) => {
  const { ma, lines, env, url } = await recordedBridge(t);
  const dir = ma.b.configDir;
  await ok(ma, 'save_world', { folder: 'victim' });
  await ok(ma, 'record_start', { name: 'other' });
  await ok(ma, 'record_stop');
  const victim = join(dir, 'saves', 'victim', 'world.sav');
  const other = join(dir, 'episodes', 'other.jsonl');
  const before = { victim: fileState(victim), other: fileState(other), saves: readdirSync(join(dir, 'saves')), episodes: readdirSync(join(dir, 'episodes')) };
  const hashBefore = await ok(ma, 'world_hash');
  const tick = JSON.parse(lines[1]!).tick as number;
  const crafted = join(tempDir('gcb-crafted-'), 'crafted.jsonl');
  writeFileSync(
    crafted,
    withLines(lines, [
      { tick, order: 1, agent: 'dm', name: 'save_world', args: { folder: 'victim' }, code: null },
      { tick, order: 2, agent: 'dm', name: 'record_start', args: { name: 'other' }, code: null },
      { tick, order: 3, agent: 'dm', name: 'save_world', args: { folder: 'planted' }, code: null },
    ]),
  );

  const run = await gcbIn(['replay', crafted, ...url], env);
  t.equal(run.code, 5, 'exit 5');
  t.match(run.stderr, /^gcb replay: .*line \d+ runs save_world, which no record holds/);
  t.equal(run.stderr.trimEnd().split('\n').length, 1, 'one line');
  t.equal(run.stdout, '', 'no "replay matched"');
  t.same(
    { victim: fileState(victim), other: fileState(other), saves: readdirSync(join(dir, 'saves')), episodes: readdirSync(join(dir, 'episodes')) },
    before,
    'the save and the record are untouched, and nothing new was written',
  );
  t.same(await ok(ma, 'world_hash'), hashBefore, 'nothing ran: not even the start world was made');

  for (const [name, args] of [
    ['load_world', { folder: 'victim' }],
    ['generate_world', { zone_x: 2, zone_y: 2 }],
    ['send_message', { to: 'dm', content: 'hi' }],
    ['record_stop', {}],
    ['dismiss_window', {}],
    ['get_world_state', {}],
  ] as const) {
    writeFileSync(crafted, withLines(lines, [{ tick, order: 1, agent: 'dm', name, args, code: null }]));
    const refused = await gcbIn(['replay', crafted, ...url], env);
    t.equal(refused.code, 5, `${name}: exit 5`);
    t.match(refused.stderr, new RegExp(`runs ${name}, which no record holds`), name);
  }
  writeFileSync(
    crafted,
    withLines(lines, [
      {
        tick,
        order: 1,
        agent: 'dm',
        name: 'batch',
        args: {
          commands: [
            { name: 'spawn', args: {} },
            { name: 'save_world', args: { folder: 'x' } },
          ],
        },
        code: null,
      },
    ]),
  );
  const inBatch = await gcbIn(['replay', crafted, ...url], env);
  t.equal(inBatch.code, 5, 'a batch item is checked as if it came alone');
  t.match(inBatch.stderr, /commands\[1\] runs save_world/);
  t.same(await ok(ma, 'world_hash'), hashBefore, 'and nothing ran');
});

t.test(
  'bounds: a header tick above 1,000,000, ticks above --max-ticks, args nested 200,000 deep, a bad seed: each exit 5 in one line before anything runs',
  async (t) => {
    const { ma, lines, env, url } = await recordedBridge(t);
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    const body = lines.slice(1);
    const tick = JSON.parse(lines[1]!).tick as number;
    const dir = tempDir('gcb-bounds-');
    const hashBefore = await ok(ma, 'world_hash');
    const steps = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ tick: tick + i, order: 0, agent: 'dm', name: 'step', args: { ticks: 10_000 }, code: null }));
    let deep = '1';
    for (let i = 0; i < 200_000; i++) deep = `[${deep}]`;
    const cases: Array<[string, string, string[], RegExp]> = [
      [
        'a header tick above 1,000,000',
        [JSON.stringify({ ...header, tick: 1_000_001 }), ...body].join('\n') + '\n',
        [],
        /header's tick 1000001 is above 1000000/,
      ],
      ['ticks in all above the default --max-ticks', withLines(lines, steps(1_001)), [], /ticks in all.*above --max-ticks 10000000/],
      ['ticks in all above --max-ticks', withLines(lines, steps(1)), ['--max-ticks', '5000'], /ticks in all.*above --max-ticks 5000/],
      ['a hash line far ahead', withLines(lines, [{ tick: 1e15, hash: '0123456789abcdef' }]), [], /ticks in all.*above --max-ticks/],
      [
        'args nested 200,000 deep',
        `${[...lines.slice(0, -1), `{"tick":${tick},"order":1,"agent":"dm","name":"spawn","args":${deep},"code":null}`, lines.at(-1)].join('\n')}\n`,
        [],
        /line \d+ nests deeper than 32/,
      ],
      ['a negative seed', [JSON.stringify({ ...header, seed: -1 }), ...body].join('\n') + '\n', [], /seed -1/],
      ['a size no world has', [JSON.stringify({ ...header, width: 100 }), ...body].join('\n') + '\n', [], /width 100/],
    ];
    for (const [what, content, flags, message] of cases) {
      const file = join(dir, `${what.replaceAll(/[^a-z0-9]+/g, '-')}.jsonl`);
      writeFileSync(file, content);
      const run = await gcbIn(['replay', file, ...url, ...flags], env);
      t.equal(run.code, 5, `${what}: exit 5`);
      t.match(run.stderr, message, what);
      t.equal(run.stderr.trimEnd().split('\n').length, 1, `${what}: one line`);
      t.equal(run.stdout, '', `${what}: nothing else`);
    }
    t.same(await ok(ma, 'world_hash'), hashBefore, 'the bridge at --url ran nothing');

    // Without --url the bridge would be the replay's own: a bad seed is refused before it starts.
    const tmp = tempDir('gcb-replay-tmp-');
    const negative = join(dir, 'negative.jsonl');
    writeFileSync(negative, [JSON.stringify({ ...header, seed: -1 }), ...body].join('\n') + '\n');
    const own = await gcb(['replay', negative], { env: { TMPDIR: tmp } });
    t.equal(own.code, 5, 'a negative seed without --url: exit 5, not 1');
    t.match(own.stderr, /^gcb replay: .*seed -1.*\n$/);
    t.same(replayDirs(tmp), [], 'no bridge was started: no temporary dir');

    const badFlag = await gcbIn(['replay', negative, '--max-ticks', 'lots'], env);
    t.equal(badFlag.code, 2, 'a --max-ticks that is no count is a usage error');
  },
);

/** A record whose replay steps for a long time: the honest start, then many steps of 10,000 ticks. */
function longRecord(lines: string[]): string {
  const tick = JSON.parse(lines[0]!).tick as number;
  const steps = Array.from({ length: 200 }, () => ({ tick, order: 0, agent: 'dm', name: 'step', args: { ticks: 10_000 }, code: null }));
  return `${[lines[0], ...steps.map((line) => JSON.stringify(line)), lines.at(-1)].join('\n')}\n`;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`an interrupted replay (${signal}) removes its temporary dir and ends`, async (t) => {
    const { lines } = await recordedBridge(t);
    const tmp = tempDir('gcb-replay-tmp-');
    const file = join(tmp, '..', `${tmp.split('/').at(-1)}-long.jsonl`);
    writeFileSync(file, longRecord(lines));
    const child = spawn(process.execPath, [GCB, 'replay', file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, sig) => resolve({ code, signal: sig })),
    );
    // Mid-run: its bridge is up (its config dir holds bridge.toml) and the steps have begun.
    const deadline = Date.now() + 120_000;
    const bridgeDir = () => replayDirs(tmp)[0];
    while (!(bridgeDir() && existsSync(join(tmp, bridgeDir()!, 'bridge.toml'))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    t.ok(bridgeDir(), `the replay made its temporary dir ${bridgeDir()}`);
    await new Promise((r) => setTimeout(r, 3_000));
    t.equal(child.exitCode, null, 'still running when signalled');
    child.kill(signal);
    const exit = await ended;
    t.same(exit, { code: signal === 'SIGINT' ? 130 : 143, signal: null }, `it ended as a shell reports the signal: ${stderr}`);
    t.match(stderr, new RegExp(`^gcb replay: interrupted \\(${signal}\\)`), 'saying so in one line');
    t.same(replayDirs(tmp), [], 'its temporary dir is gone');
  });
}
