// `gcb events` (decisions §7): a real process following a real bridge. JSON lines on a pipe, --kinds
// and --since, Ctrl-C exits 0; the exit codes of usage, auth and an unreachable bridge; the
// readable line of a terminal.
import { spawn } from 'node:child_process';
import t from 'tap';
import { renderEvent } from '../../src/cli/events.ts';
import { EXIT, EXIT_BY_CODE } from '../../src/cli/exit-codes.ts';
import { startEventBridge, TOKEN } from '../events/helpers.ts';
import { closedPort, GCB, gcbIn, ROOT } from './helpers.ts';

t.setTimeout(90_000);

const b = await startEventBridge(t);
const env = { GCB_TOKEN: TOKEN };

/** `gcb events ...` as a process on a pipe: its parsed lines as they come, and a way to stop it. */
function follow(args: string[]) {
  const child = spawn(process.execPath, [GCB, 'events', '--url', b.bridge.url, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
  return {
    child,
    exited,
    lines,
    stderr: () => stderr,
    async waitLines(count: number, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (lines().length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} lines; stdout ${stdout}; stderr ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return lines();
    },
  };
}

t.test('a pipe gets JSON lines; --kinds filters; --since resumes; Ctrl-C exits 0', async (t) => {
  await b.cmd('emit_events', { kind: 'ping', count: 3 });
  const kept = (await b.cmd('recv_events', { kinds: ['ping'], max: 1000 })).body.result.items as Array<{ seq: number }>;
  // Three processes at once (each costs a second or more to start): everything kept, from the
  // second ping on, and live only.
  const all = follow(['--kinds', 'ping,skirmish', '--since', '0']);
  const since = follow(['--kinds', 'ping', '--since', String(kept[1]!.seq - 1)]);
  const live = follow(['--kinds', 'ping']);
  t.same(
    (await all.waitLines(3)).map((e) => e.kind),
    ['ping', 'ping', 'ping'],
    'the kept pings, no command audit events',
  );
  t.same(
    (await since.waitLines(2)).map((e) => e.seq),
    [kept[1]!.seq, kept[2]!.seq],
    '--since: the kept events after that seq',
  );
  // The live one emits nothing until something happens: wait until the bridge counts its stream.
  const deadline = Date.now() + 20_000;
  while (b.bridge.stats().events.streams < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await b.cmd('emit_events', { kind: 'skirmish', count: 1, kingdom_ids: [2] });
  await b.cmd('emit_events', { kind: 'ping', count: 1 });
  const lines = await all.waitLines(5);
  t.same(
    lines.map((e) => e.kind),
    ['ping', 'ping', 'ping', 'skirmish', 'ping'],
  );
  t.match(lines[3], { kind: 'skirmish', kingdom_ids: [2], seq: Number, tick: Number, at_utc: String });
  t.ok(
    lines.every((e, i) => i === 0 || e.seq > lines[i - 1]!.seq),
    'in seq order',
  );
  t.same(
    (await since.waitLines(3)).map((e) => e.seq),
    [kept[1]!.seq, kept[2]!.seq, lines[4]!.seq],
    'then live',
  );
  t.same(
    (await live.waitLines(1)).map((e) => e.seq),
    [lines[4]!.seq],
    'without --since: live only',
  );
  all.child.kill('SIGINT');
  since.child.kill('SIGINT');
  live.child.kill('SIGTERM');
  t.equal(await all.exited, 0, 'Ctrl-C: exit 0');
  t.equal(await since.exited, 0);
  t.equal(await live.exited, 0, 'SIGTERM too');
  t.equal(all.stderr(), '', 'nothing on stderr');
});

t.test('exit codes: usage 2, unknown kind 10, refused token 20, no bridge 4; --help', async (t) => {
  const url = ['--url', b.bridge.url];
  const badSince = await gcbIn(['events', ...url, '--since', 'yesterday'], { env });
  t.equal(badSince.code, EXIT.USAGE);
  t.match(badSince.stderr, /--since yesterday is not allowed/);
  t.equal((await gcbIn(['events', ...url, '--kinds', ','], { env })).code, EXIT.USAGE);
  t.equal((await gcbIn(['events', ...url, '--frobnicate'], { env })).code, EXIT.USAGE);
  const unknown = await gcbIn(['events', ...url, '--kinds', 'pnig'], { env });
  t.equal(unknown.code, EXIT_BY_CODE.BAD_ARGS);
  t.match(unknown.stderr, /unknown event kind 'pnig'/);
  t.match(JSON.parse(unknown.stdout), { ok: false, error: { code: 'BAD_ARGS' } }, 'the envelope on stdout, as for call');
  const refused = await gcbIn(['events', ...url], { env: { GCB_TOKEN: 'R'.repeat(48) } });
  t.equal(refused.code, EXIT_BY_CODE.UNAUTHORIZED);
  const nobody = await gcbIn(['events', '--url', `http://127.0.0.1:${await closedPort()}`], { env });
  t.equal(nobody.code, EXIT.UNREACHABLE);
  t.match(nobody.stderr, /cannot reach the bridge/);
  const help = await gcbIn(['events', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /^usage: gcb events/);
  t.match((await gcbIn(['--help'])).stdout, /\n {2}events +follow what happens/);
});

t.test('a terminal gets one readable line an event', async (t) => {
  const line = renderEvent({
    seq: 7,
    kind: 'war_declared',
    tick: 512,
    at_utc: '2026-11-23T16:04:28.123Z',
    kingdom_ids: [1, 2],
    sides: [
      { id: 1, name: 'North' },
      { id: 2, name: 'South' },
    ],
  });
  t.equal(line, '#7 16:04:28 tick 512 war_declared [1,2] sides=[{"id":1,"name":"North"},{"id":2,"name":"South"}]');
  const long = renderEvent({ seq: 8, kind: 'message', tick: 1, at_utc: '2026-11-23T16:04:29.000Z', kingdom_ids: [], content: 'two\nlines ' + 'x'.repeat(400) });
  t.notOk(long.includes('\n'), 'never more than one line');
  t.ok(long.length < 260, 'long fields shortened');
});

t.test('the README shows gcb events in its quick start', async (t) => {
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('README.md', `file://${ROOT}/`), 'utf8');
  const quickStart = readme.slice(0, readme.indexOf('## Configuration'));
  t.match(quickStart, /```sh\nnode bin\/gcb\.js events/, 'an example before the configuration table');
});
