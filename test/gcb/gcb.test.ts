// runGcb in-process (the same code bin/gcb.js runs): every subcommand's help, readable output on a
// terminal, finding the bridge, exit codes, and call args typed by the schema.
import { join } from 'node:path';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { EXIT_BY_CODE } from '../../src/cli/exit-codes.ts';
import { startTestBridge, tempDir, until, writeConfig } from '../helpers/bridge.ts';
import { gcbIn, pinPort } from './helpers.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

t.setTimeout(120_000);

// Two bridges for the whole file (closed when it ends): the fixture game and the sandbox.
const tiny = await startTestBridge(t);
pinPort(tiny.configDir, tiny.bridge.port);
const sandbox = await startTestBridge(t, { game: SANDBOX_GAME });

t.test('--help on every subcommand; no command, an unknown one', async (t) => {
  for (const sub of ['serve', 'health', 'capabilities', 'call', 'token', 'mcp']) {
    for (const argv of [
      [sub, '--help'],
      [sub, '-h'],
      ['help', sub],
    ]) {
      const run = await gcbIn(argv);
      t.equal(run.code, 0, argv.join(' '));
      t.match(run.stdout, new RegExp(`^usage: gcb ${sub}`));
    }
  }
  const bare = await gcbIn([]);
  t.equal(bare.code, 2);
  t.match(bare.stderr, /usage: gcb <command>/);
  const unknown = await gcbIn(['frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command 'frobnicate'/);
  t.match((await gcbIn(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/);
});

t.test('readable on a terminal, JSON on a pipe or with --json', async (t) => {
  const b = tiny;
  const env = { GCB_TOKEN: b.token };
  const url = ['--url', b.bridge.url];
  const health = await gcbIn(['health', ...url], { env, isTTY: true });
  t.match(health.stdout, /^ok: true\nmod_version: \d+\.\d+\.\d+\n/);
  t.match(health.stdout, /\nscenario: sandbox\n/);
  const forced = await gcbIn(['health', '--json', ...url], { env, isTTY: true });
  t.match(JSON.parse(forced.stdout), { ok: true });
  const caps = await gcbIn(['capabilities', ...url], { env, isTTY: true });
  t.match(caps.stdout, /^mod_version .*\n.*\n\d+ commands:\n {2}health +meta\n/);
  const ui = await gcbIn(['call', 'get_ui_state', ...url], { env, isTTY: true });
  t.equal(ui.stdout, 'window_active: false\ncurrent_window: null\nconfig_paused: false\neffective_paused: false\nworld_loading: false\n');
  const jsonArgs = await gcbIn(['call', 'get_ui_state', '--json', '{}', ...url], { env, isTTY: true });
  t.match(JSON.parse(jsonArgs.stdout), { ok: true, result: { window_active: false } }, '--json with an object: args and JSON output');
  const bad = await gcbIn(['call', 'get_world_state', 'x=1', ...url], { env, isTTY: true });
  t.equal(bad.code, EXIT_BY_CODE.BAD_ARGS);
  t.equal(bad.stdout, '', 'on a terminal the error goes to stderr only');
  t.match(bad.stderr, /^gcb: BAD_ARGS \(HTTP 400\)/);
});

t.test('finding the bridge: --config-dir, --url + GCB_TOKEN, GCB_TOKEN over bridge.toml, token', async (t) => {
  const b = tiny;
  const dir = ['--config-dir', b.configDir];
  t.match(JSON.parse((await gcbIn(['call', 'get_ui_state', ...dir])).stdout), { ok: true, result: { window_active: false } });
  const caps = await gcbIn(['capabilities', ...dir]);
  t.same(JSON.parse(caps.stdout), await (await b.fetch('/capabilities')).json(), 'the capabilities object as served');
  t.equal((await gcbIn(['health', ...dir], { env: { GCB_TOKEN: 'wrong-token' } })).code, EXIT_BY_CODE.UNAUTHORIZED, 'GCB_TOKEN wins over the file');
  t.equal((await gcbIn(['health', '--url', b.bridge.url, ...dir])).code, 0, '--url without GCB_TOKEN: the config dir token');
  const none = await gcbIn(['health', '--url', b.bridge.url, '--config-dir', tempDir()]);
  t.equal(none.code, 3);
  t.match(none.stderr, /GCB_TOKEN/);
  t.same(JSON.parse((await gcbIn(['token', '--json', ...dir])).stdout), { token: b.token, url: b.bridge.url });
  t.equal((await gcbIn(['token', '--config-dir', tempDir()])).code, 3);
});

t.test('exit codes: one per error code, 2 for usage', async (t) => {
  const b = sandbox;
  const env = { GCB_TOKEN: b.token };
  const url = ['--url', b.bridge.url];
  const cases: Array<[string[], number, Record<string, string>?]> = [
    [['call', 'get_world_state', 'x=1'], EXIT_BY_CODE.BAD_ARGS],
    [['call', 'no_such_command'], EXIT_BY_CODE.UNKNOWN_COMMAND],
    [['call', 'spawn', 'entity_id=humn', 'x=10', 'y=10'], EXIT_BY_CODE.UNKNOWN_ASSET],
    [['call', 'get_tile', 'x=99999', 'y=0'], EXIT_BY_CODE.OUT_OF_BOUNDS],
    [['health'], EXIT_BY_CODE.UNAUTHORIZED, { GCB_TOKEN: 'wrong-token' }],
    [['health', '--nope'], 2],
    [['call', 'get_world_state', 'novalue'], 2],
    [['call', 'get_world_state', '--json', '{oops'], 2],
    [['call'], 2],
    [['mcp', '--tool-prefix', 'no spaces'], 2],
    [['mcp', '--port', '9'], 2],
  ];
  for (const [argv, code, envOverride] of cases) {
    const run = await gcbIn([...argv, ...url], { env: envOverride ?? env });
    t.equal(run.code, code, `${argv.join(' ')} → ${code}`);
    t.match(run.stderr, /^gcb: /);
  }
  const typo = await gcbIn(['call', 'spawn', 'entity_id=humn', 'x=10', 'y=10', ...url], { env });
  t.match(typo.stderr, /UNKNOWN_ASSET .*\n.*did you mean: human/);
  t.match(JSON.parse(typo.stdout), { error: { code: 'UNKNOWN_ASSET', did_you_mean: ['human'] } });
});

t.test('BUSY: retried, with a note on stderr', async (t) => {
  const dir = tempDir();
  const token = writeConfig(dir, { maxConcurrent: 1 });
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { stallOnPauseMs: 2000 }, timings: { admissionWaitMs: 200 } });
  const holder = b.cmd('pause');
  await until(() => b.bridge.stats().slotsInUse === 1, 5000, 'the slot to be taken');
  const run = await gcbIn(['call', 'get_ui_state', '--url', b.bridge.url], { env: { GCB_TOKEN: token } });
  t.equal(run.code, 0);
  t.match(run.stderr, /^gcb: bridge busy, retry 1 in 1\.0 s\n/);
  await holder;
});

t.test('call args are typed by the command schema', async (t) => {
  const b = sandbox;
  const env = { GCB_TOKEN: b.token };
  const url = ['--url', b.bridge.url];
  const dotted = await gcbIn(['call', 'query_actors', 'limit=2', 'in_rect.x=0', 'in_rect.y=0', 'in_rect.w=256', 'in_rect.h=256', ...url], { env });
  t.equal(dotted.code, 0, dotted.stderr);
  t.match(JSON.parse(dotted.stdout), { result: { limit: 2 } });
  const raw = await gcbIn(['call', 'query_actors', 'in_rect:={"x":0,"y":0,"w":256,"h":256}', 'limit:=1', ...url], { env });
  t.match(JSON.parse(raw.stdout), { result: { limit: 1 } });
  const merged = await gcbIn(['call', 'query_actors', '--json', '{"limit":1,"offset":0}', 'limit=3', ...url], { env });
  t.match(JSON.parse(merged.stdout), { result: { limit: 3, offset: 0 } }, 'a pair wins over --json');
  const stdin = await gcbIn(['call', 'query_actors', '--json', '-', ...url], { env, input: '{"limit": 4}' });
  t.match(JSON.parse(stdin.stdout), { result: { limit: 4 } });
  const notInt = await gcbIn(['call', 'get_tile', 'x=ten', 'y=0', ...url], { env });
  t.equal(notInt.code, EXIT_BY_CODE.BAD_ARGS, 'a value the schema cannot type goes as a string; the bridge says what is wrong');
});

t.test('docs/cli.md shows the same exit-code table as gcb --help', async (t) => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8');
  for (const [code, exit] of Object.entries(EXIT_BY_CODE)) t.match(doc, new RegExp(`\\n\\| ${exit} \\| ${code}[ |]`), `${exit} ${code}`);
  for (const exit of [0, 1, 2, 3, 4]) t.match(doc, new RegExp(`\\n\\| ${exit} \\| `));
});
