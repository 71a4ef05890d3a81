import { mkdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { generateToken } from '../../src/auth/token-strength.ts';
import { createAjv } from '../../src/config/ajv.ts';
import { ConfigError, loadConfig } from '../../src/config/load.ts';
import { tempDir } from '../helpers/bridge.ts';
import { canListOpenFiles, openFilesUnder } from '../helpers/open-files.ts';

function configWith(body: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'bridge.toml'), body);
  return dir;
}

const TOKEN = 'A'.repeat(48);

t.test('first launch writes bridge.toml with a fresh token, mode 0600', async (t) => {
  const dir = join(tempDir(), 'nested', 'config');
  const first = loadConfig(dir);
  t.equal(first.created, true);
  t.equal(statSync(first.path).mode & 0o777, 0o600, 'created 0600');
  t.match(first.config.Bridge.token, /^[A-Za-z0-9]{48}$/);
  t.same(
    { ...first.config, Bridge: { ...first.config.Bridge, token: 'x' } },
    {
      enabled: true,
      // event_history and max_event_streams: decisions §7 (v0.4); idempotency_budget_mb: decisions §13; clock and max_savepoints: §12.
      Bridge: {
        host: '127.0.0.1',
        port: 8723,
        max_concurrent_requests: 8,
        token: 'x',
        max_body_bytes: 1048576,
        event_history: 10000,
        max_event_streams: 16,
        idempotency_budget_mb: 64,
      },
      Game: { suppress_startup_window: true, fps: 60, saves_dir: 'saves', seed: 1234, clock: 'realtime', max_savepoints: 16, step_slice_ms: 100 },
    },
    'the documented defaults',
  );
  const again = loadConfig(dir);
  t.equal(again.created, false);
  t.equal(again.config.Bridge.token, first.config.Bridge.token, 'the token is kept across launches');
  t.not(loadConfig(tempDir()).config.Bridge.token, first.config.Bridge.token, 'each new config gets its own token');
});

t.test('tokens are 48 characters of [A-Za-z0-9] and do not repeat', async (t) => {
  const tokens = new Set(Array.from({ length: 200 }, generateToken));
  t.equal(tokens.size, 200);
  for (const token of tokens) t.match(token, /^[A-Za-z0-9]{48}$/);
});

const refused: Array<[string, string, RegExp]> = [
  [
    'host 0.0.0.0',
    `[Bridge]\nhost = "0.0.0.0"\ntoken = "${TOKEN}"`,
    /\[Bridge\] host = "0\.0\.0\.0" is not allowed; allowed: "127\.0\.0\.1" or "localhost": the bridge listens on loopback only/,
  ],
  ['host of a LAN address', `[Bridge]\nhost = "192.168.1.5"\ntoken = "${TOKEN}"`, /\[Bridge\] host/],
  [
    'max_concurrent_requests 0',
    `[Bridge]\nmax_concurrent_requests = 0\ntoken = "${TOKEN}"`,
    /\[Bridge\] max_concurrent_requests = 0 is not allowed; allowed: an integer from 1 to 64/,
  ],
  [
    'max_concurrent_requests 65',
    `[Bridge]\nmax_concurrent_requests = 65\ntoken = "${TOKEN}"`,
    /\[Bridge\] max_concurrent_requests = 65 is not allowed; allowed: an integer from 1 to 64/,
  ],
  ['max_concurrent_requests not an integer', `[Bridge]\nmax_concurrent_requests = "8"\ntoken = "${TOKEN}"`, /\[Bridge\] max_concurrent_requests = "8"/],
  ['port 70000', `[Bridge]\nport = 70000\ntoken = "${TOKEN}"`, /\[Bridge\] port = 70000 is not allowed; allowed: an integer from 1 to 65535/],
  ['fps 0', `[Bridge]\ntoken = "${TOKEN}"\n[Game]\nfps = 0`, /\[Game\] fps = 0 is not allowed; allowed: an integer from 1 to 240/],
  [
    'event_history over a million',
    `[Bridge]\ntoken = "${TOKEN}"\nevent_history = 1000001`,
    /\[Bridge\] event_history = 1000001 is not allowed; allowed: an integer from 0 to 1000000/,
  ],
  [
    'max_event_streams 0',
    `[Bridge]\ntoken = "${TOKEN}"\nmax_event_streams = 0`,
    /\[Bridge\] max_event_streams = 0 is not allowed; allowed: an integer from 1 to 256/,
  ],
  [
    'max_event_streams 257',
    `[Bridge]\ntoken = "${TOKEN}"\nmax_event_streams = 257`,
    /\[Bridge\] max_event_streams = 257 is not allowed; allowed: an integer from 1 to 256/,
  ],
  [
    'idempotency_budget_mb 0',
    `[Bridge]\ntoken = "${TOKEN}"\nidempotency_budget_mb = 0`,
    /\[Bridge\] idempotency_budget_mb = 0 is not allowed; allowed: an integer from 1 to 1024/,
  ],
  [
    'idempotency_budget_mb 1025',
    `[Bridge]\ntoken = "${TOKEN}"\nidempotency_budget_mb = 1025`,
    /\[Bridge\] idempotency_budget_mb = 1025 is not allowed; allowed: an integer from 1 to 1024/,
  ],
  ['enabled not a boolean', `enabled = "yes"\n[Bridge]\ntoken = "${TOKEN}"`, /enabled = "yes" is not allowed; allowed: true or false/],
  ['short token', `[Bridge]\ntoken = "abc"`, /\[Bridge\] token is not allowed \(value not shown\)/],
  ['missing token', `[Bridge]\nport = 9000`, /\[Bridge\] token is missing/],
  ['suppress_startup_window not a boolean', `[Bridge]\ntoken = "${TOKEN}"\n[Game]\nsuppress_startup_window = 1`, /\[Game\] suppress_startup_window = 1/],
  ['broken TOML', `[Bridge\ntoken = "${TOKEN}"`, /bridge\.toml: not valid TOML \(line 1, column \d+\): \S/],
  [
    'a token of the wrong form',
    `[Bridge]\ntoken = "${TOKEN.slice(1)}-"`,
    /\[Bridge\] token is not allowed \(value not shown\); allowed: a string matching \^\[A-Za-z0-9\]\{48\}\$ \(delete the key and bridge\.toml to get a fresh one\)$/,
  ],
  ['saves_dir empty', `[Bridge]\ntoken = "${TOKEN}"\n[Game]\nsaves_dir = ""`, /: \[Game\] saves_dir = "" is not allowed; allowed: a non-empty string$/],
  ['a section that is not a table', `Bridge = 1`, /: Bridge = 1 is not allowed; allowed: a table$/],
  ['seed below 0', `[Bridge]\ntoken = "${TOKEN}"\n[Game]\nseed = -1`, /\[Game\] seed = -1 is not allowed; allowed: an integer from 0 to 2147483647$/],
  ['enabled not a boolean, exactly', `enabled = 1\n[Bridge]\ntoken = "${TOKEN}"`, /bridge\.toml: enabled = 1 is not allowed; allowed: true or false$/],
];

for (const [what, body, message] of refused) {
  t.test(`refused: ${what}, with one line naming the key`, async (t) => {
    const dir = configWith(body);
    try {
      loadConfig(dir);
      t.fail('should refuse');
    } catch (err) {
      t.type(err, ConfigError);
      t.match((err as Error).message, message);
      t.notMatch((err as Error).message, /\n/, 'one line');
      t.notMatch((err as Error).message, TOKEN, 'never the token');
    }
  });
}

t.test('"localhost" is accepted (bound as 127.0.0.1); unknown keys are a warning, not a refusal', async (t) => {
  const dir = configWith(`colour = "blue"\n[Bridge]\nhost = "localhost"\ntoken = "${TOKEN}"\nflavour = 1\n[Extra]\nx = 1`);
  const loaded = loadConfig(dir);
  t.equal(loaded.config.Bridge.host, 'localhost');
  t.same(loaded.unknownKeys.sort(), ['Extra', '[Bridge] flavour', 'colour'].sort());
});

t.test('[Game] clock is realtime or lockstep, --lockstep overrides it; max_savepoints is 1..256', async (t) => {
  const game = (lines: string) => configWith(`[Bridge]\ntoken = "${TOKEN}"\n[Game]\n${lines}`);
  t.equal(loadConfig(game('clock = "lockstep"')).config.Game.clock, 'lockstep');
  t.equal(loadConfig(game('')).config.Game.clock, 'realtime', 'realtime by default');
  t.equal(loadConfig(game('clock = "realtime"'), { clock: 'lockstep' }).config.Game.clock, 'lockstep', '--lockstep wins over the file');
  t.throws(() => loadConfig(game('clock = "fast"')), /\[Game\] clock = "fast" is not allowed; allowed: "realtime" or "lockstep"$/);
  t.equal(loadConfig(game('max_savepoints = 1')).config.Game.max_savepoints, 1);
  t.equal(loadConfig(game('max_savepoints = 256')).config.Game.max_savepoints, 256);
  t.throws(() => loadConfig(game('max_savepoints = 0')), /\[Game\] max_savepoints = 0 is not allowed; allowed: an integer from 1 to 256$/);
  t.throws(() => loadConfig(game('max_savepoints = 257')), /max_savepoints = 257 is not allowed/);
  // The file written at first launch names both, with their defaults.
  const fresh = loadConfig(tempDir());
  const text = readFileSync(fresh.path, 'utf8');
  t.match(text, /^clock = "realtime" /m);
  t.match(text, /^max_savepoints = 16 /m);
});

t.test('[Game] step_slice_ms is 10..25000, 100 by default (decisions §15)', async (t) => {
  const game = (lines: string) => configWith(`[Bridge]\ntoken = "${TOKEN}"\n[Game]\n${lines}`);
  t.equal(loadConfig(game('')).config.Game.step_slice_ms, 100);
  t.equal(loadConfig(game('step_slice_ms = 10')).config.Game.step_slice_ms, 10);
  t.equal(loadConfig(game('step_slice_ms = 25000')).config.Game.step_slice_ms, 25_000);
  t.throws(() => loadConfig(game('step_slice_ms = 9')), /\[Game\] step_slice_ms = 9 is not allowed; allowed: an integer from 10 to 25000$/);
  t.throws(() => loadConfig(game('step_slice_ms = 25001')), /step_slice_ms = 25001 is not allowed/);
  t.throws(() => loadConfig(game('step_slice_ms = 50.5')), /step_slice_ms = 50.5 is not allowed/);
  t.match(readFileSync(loadConfig(tempDir()).path, 'utf8'), /^step_slice_ms = 100 /m, 'the file written at first launch names it');
});

t.test('--port overrides the file; the file is not rewritten', async (t) => {
  const dir = configWith(`[Bridge]\nport = 9000\ntoken = "${TOKEN}"`);
  t.equal(loadConfig(dir, { port: 9100 }).config.Bridge.port, 9100);
  t.match(readFileSync(join(dir, 'bridge.toml'), 'utf8'), /port = 9000/);
  t.throws(() => loadConfig(dir, { port: 70000 }), /^port 70000 is not allowed; allowed: an integer from 1 to 65535$/);
  t.equal(loadConfig(dir, { port: 0 }).config.Bridge.port, 0, '--port 0: any free port');
  t.equal(loadConfig(dir, { port: 65535 }).config.Bridge.port, 65535);
  t.throws(() => loadConfig(dir, { port: -1 }), ConfigError);
  t.throws(() => loadConfig(dir, { port: 65536 }), ConfigError);
  t.throws(() => loadConfig(dir, { port: 80.5 }), ConfigError);
});

t.test('a minimal file gets every documented default; the extremes of seed', async (t) => {
  const loaded = loadConfig(configWith(`[Bridge]\ntoken = "${TOKEN}"`));
  t.same(loaded.config, {
    enabled: true,
    Bridge: {
      host: '127.0.0.1',
      port: 8723,
      max_concurrent_requests: 8,
      token: TOKEN,
      max_body_bytes: 1048576,
      event_history: 10000,
      max_event_streams: 16,
      idempotency_budget_mb: 64,
    },
    Game: { suppress_startup_window: true, fps: 60, saves_dir: 'saves', seed: 1234, clock: 'realtime', max_savepoints: 16, step_slice_ms: 100 },
  });
  t.equal(loadConfig(configWith(`[Bridge]\ntoken = "${TOKEN}"\n[Game]\nseed = 2147483647`)).config.Game.seed, 2147483647);
  for (const mb of [1, 1024]) {
    t.equal(loadConfig(configWith(`[Bridge]\ntoken = "${TOKEN}"\nidempotency_budget_mb = ${mb}`)).config.Bridge.idempotency_budget_mb, mb);
  }
  t.throws(
    () => loadConfig(configWith(`[Bridge]\ntoken = "${TOKEN}"\n[Game]\nseed = 2147483648`)),
    /seed = 2147483648 is not allowed; allowed: an integer from 0 to 2147483647/,
  );
  t.throws(
    () => loadConfig(configWith('')),
    /bridge\.toml: \[Bridge\] token is missing; allowed: a string matching/,
    'an empty file: the token is what is missing',
  );
});

t.test('an unreadable bridge.toml is refused with the reason; the error is a ConfigError by name', async (t) => {
  const dir = tempDir();
  mkdirSync(join(dir, 'bridge.toml'));
  try {
    loadConfig(dir);
    t.fail('should refuse');
  } catch (err) {
    t.type(err, ConfigError);
    t.equal((err as Error).name, 'ConfigError');
    t.match((err as Error).message, /bridge\.toml: cannot read: EISDIR/);
  }
});

t.test('a key defined twice (an error placed by line and column, not by location) names its line and column', async (t) => {
  t.throws(() => loadConfig(configWith(`[Bridge]\ntoken = "${TOKEN}"\nport = 1\nport = 2`)), {
    message: /bridge\.toml: not valid TOML \(line 4, column 1\): Cannot redefine existing key 'Bridge\.port'\.$/,
  });
});

t.test('creating bridge.toml leaves no file descriptor open on it', { skip: !canListOpenFiles && 'lists open files on Linux only' }, async (t) => {
  const dir = tempDir();
  loadConfig(dir);
  t.same(openFilesUnder(dir), []);
});

t.test('a schema keyword Ajv does not know never stops the bridge: its Ajv is not strict', async (t) => {
  // TypeBox passes a schema's options through as keywords.
  const validate = createAjv().compile({ type: 'object', properties: { name: { type: 'string', 'x-shown-as': 'a name' } } });
  t.equal(validate({ name: 'a' }), true);
  t.equal(validate({ name: 1 }), false, 'and the known keywords still apply');
});
