// The typed client against real bridges: calls, the one error class, tokens from a config dir, and
// the retry rule (BUSY alone, Retry-After honoured, bounded).
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { BridgeCallError, BridgeClient, BridgeConnectionError, ClientConfigError, createClient, type RetryEvent } from '../../src/client/index.ts';
import { startTestBridge, tempDir, until, writeConfig, type TestBridge } from '../helpers/bridge.ts';
import { closedPort, pinPort } from '../gcb/helpers.ts';

/** One slot, taken by a pause whose frame stalls the game thread for `stallMs`. */
async function saturated(t: Tap.Test, stallMs: number, timings: { admissionWaitMs?: number; queueDeadlineMs?: number } = {}, maxConcurrent = 1) {
  const dir = tempDir();
  writeConfig(dir, { maxConcurrent });
  const b = await startTestBridge(t, { configDir: dir, gameOptions: { stallOnPauseMs: stallMs }, timings: { admissionWaitMs: 200, ...timings } });
  const holder = b.cmd('pause');
  await until(() => b.bridge.stats().slotsInUse === 1, 5000, 'the slot to be taken');
  return { b, holder };
}
declare namespace Tap {
  type Test = import('tap').Test;
}

// Real bridges and real waits (admission, Retry-After, stalled frames): room for a loaded machine.
t.setTimeout(120_000);

// The fixture-game bridge most tests share (closed when the file ends).
const tiny = await startTestBridge(t);
pinPort(tiny.configDir, tiny.bridge.port);

/** The request log lines of one command. */
const linesOf = (b: TestBridge, command: string) => b.logs.filter((line) => line.msg === 'request' && line.command === command);

t.test('health, capabilities and typed calls against a real bridge', async (t) => {
  const b = tiny;
  const client = createClient({ url: b.bridge.url, token: b.token });
  t.equal(client.url, b.bridge.url);
  const health = await client.health();
  t.match(health, { ok: true, mod_version: /^\d+\.\d+\.\d+$/, multi_agent: false, scenario: 'sandbox', agent_count: 1 });
  const caps = await client.capabilities();
  t.ok(caps.commands.some((c) => c.name === 'get_world_state' && c.category === 'read'));
  const world = await client.call('get_world_state');
  const width: number = world.width; // typed from the command's result schema
  t.equal(width, 128);
  const paused = await client.call('pause', {});
  t.same(paused, { previous_paused: false, paused: true });
  const ui = await client.request('get_ui_state');
  t.match(ui, { ok: true, result: { config_paused: true }, tick: Number });
  t.equal(new BridgeClient({ url: `${b.bridge.url}/`, token: b.token }).url, b.bridge.url, 'a trailing slash is dropped');
});

t.test('the token and port come from a config dir; an explicit token wins', async (t) => {
  const b = tiny;
  const client = createClient({ configDir: b.configDir });
  t.equal(client.url, b.bridge.url);
  t.equal((await client.call('get_world_state')).width, 128);
  const wrong = createClient({ configDir: b.configDir, token: 'not-the-token' });
  await t.rejects(wrong.health(), { name: 'BridgeCallError', code: 'UNAUTHORIZED', status: 401 });
  t.throws(() => createClient({ configDir: tempDir() }), ClientConfigError, 'no bridge.toml');
  t.throws(() => createClient({ url: b.bridge.url, token: 'a\r\nb' }), ClientConfigError, 'no header injection');
  t.throws(() => createClient({ url: 'ftp://127.0.0.1', token: 'x' }), ClientConfigError);
});

t.test('every error envelope is one BridgeCallError with code, status, did_you_mean and exception', async (t) => {
  const b = await startTestBridge(t, { gameOptions: { crashOnWorldState: true } });
  const client = createClient({ url: b.bridge.url, token: b.token });

  const bad = await client.request('get_world_state', { x: 1 }).catch((e: unknown) => e);
  t.type(bad, BridgeCallError);
  t.match(bad, { code: 'BAD_ARGS', status: 400, command: 'get_world_state', args: { x: 1 }, message: /unknown property 'x'/, attempts: 1, requestId: String });
  t.same((bad as BridgeCallError).toJSON(), { ok: false, error: (bad as BridgeCallError).body }, 'toJSON is the envelope');

  await t.rejects(client.request('no_such_command'), { code: 'UNKNOWN_COMMAND', status: 404, command: 'no_such_command' });
  const crash = (await client.call('get_world_state').catch((e: unknown) => e)) as BridgeCallError;
  t.match(crash, { code: 'GAME_CRASH', status: 500, exception: { type: 'TypeError', message: String, stack_top: String } });
  await t.rejects(client.withToken('wrong').call('whoami'), { code: 'UNAUTHORIZED', status: 401, command: '' });
});

t.test('UNKNOWN_ASSET carries did_you_mean (sandbox world)', async (t) => {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });
  const client = createClient({ url: b.bridge.url, token: b.token });
  const error = (await client.call('spawn', { entity_id: 'humn', x: 10, y: 10 }).catch((e: unknown) => e)) as BridgeCallError;
  t.match(error, { code: 'UNKNOWN_ASSET', status: 400, command: 'spawn' });
  t.ok(error.didYouMean?.includes('human'), `did_you_mean ${JSON.stringify(error.didYouMean)}`);
  t.ok((error.didYouMean?.length ?? 0) <= 5);
});

t.test('BUSY is retried after Retry-After, then succeeds', async (t) => {
  const { b, holder } = await saturated(t, 2000);
  const events: RetryEvent[] = [];
  const client = createClient({ url: b.bridge.url, token: b.token, onRetry: (event) => events.push(event) });
  const started = Date.now();
  const ui = await client.call('get_ui_state');
  t.equal(ui.config_paused, true, 'ran after the pause');
  t.ok(events.length >= 1, 'retried');
  t.equal(events[0]!.error.code, 'BUSY');
  t.equal(events[0]!.delayMs, 1000, 'waited the Retry-After: 1 (above the 500 ms first backoff)');
  t.ok(Date.now() - started >= 1200, 'admission wait + Retry-After');
  const lines = linesOf(b, 'get_ui_state');
  t.equal(lines.filter((l) => l.code === 'BUSY').length, events.length, 'one BUSY answer per retry');
  t.equal(lines.filter((l) => l.status === 200).length, 1);
  await holder;
});

t.test('BUSY retries are bounded: retries, Retry-After beyond maxDelayMs, retry: false', async (t) => {
  const { b, holder } = await saturated(t, 5000);
  const client = createClient({ url: b.bridge.url, token: b.token, retry: { retries: 1 } });
  const exhausted = (await client.call('get_ui_state').catch((e: unknown) => e)) as BridgeCallError;
  t.match(exhausted, { code: 'BUSY', status: 503, attempts: 2 });
  await t.rejects(client.call('get_ui_state', {}, { retry: false }), { code: 'BUSY', attempts: 1 });
  await t.rejects(
    client.call('get_ui_state', {}, { retry: { maxDelayMs: 500 } }),
    { code: 'BUSY', attempts: 1 },
    'Retry-After: 1 is over a 500 ms bound: no early retry',
  );
  const aborted = new AbortController();
  const pending = client.call('get_ui_state', {}, { retry: { retries: 5 }, signal: aborted.signal });
  setTimeout(() => aborted.abort(new Error('caller gave up')), 400);
  await t.rejects(pending, { message: 'caller gave up' }, 'an abort ends the wait between retries');
  t.equal(linesOf(b, 'get_ui_state').length, 2 + 1 + 1 + 1);
  await holder;
});

t.test('nothing but BUSY is retried: BAD_ARGS, 504 MAIN_THREAD_TIMEOUT', async (t) => {
  // Two slots: the stalled pause holds one, so the next game-thread command gets a slot and then
  // misses its 300 ms queueing deadline behind the stalled frame.
  const { b, holder } = await saturated(t, 3000, { queueDeadlineMs: 300 }, 2);
  const events: RetryEvent[] = [];
  const client = createClient({ url: b.bridge.url, token: b.token, onRetry: (e) => events.push(e), retry: { retries: 5 } });
  await t.rejects(client.request('get_world_state', { x: 1 }), { code: 'BAD_ARGS', attempts: 1 });
  await t.rejects(client.call('get_ui_state'), { code: 'MAIN_THREAD_TIMEOUT', status: 504, attempts: 1 });
  t.same(events, [], 'no retry');
  t.equal(linesOf(b, 'get_world_state').length, 1);
  t.equal(linesOf(b, 'get_ui_state').length, 1);
  await holder;
});

t.test('no bridge at the URL is a BridgeConnectionError', async (t) => {
  const port = await closedPort();
  const client = createClient({ url: `http://127.0.0.1:${port}`, token: 'x' });
  await t.rejects(client.health(), { name: 'BridgeConnectionError', message: /connection refused/ });
  const err = await client.call('whoami').catch((e: unknown) => e);
  t.type(err, BridgeConnectionError);
});

// Compile-time checks (npx tsc): names, args and results come from the command schemas.
export async function typeChecks(client: BridgeClient): Promise<void> {
  const spawned = await client.call('spawn', { entity_id: 'human', x: 1, y: 2, count: 3 });
  spawned.names satisfies string[];
  (await client.call('screenshot', { format: 'png' })).base64 satisfies string;
  // @ts-expect-error entity_id is a string
  await client.call('spawn', { entity_id: 1, x: 1, y: 2 });
  // @ts-expect-error spawn needs its args
  await client.call('spawn');
  // @ts-expect-error not a command
  await client.call('spwan');
  // @ts-expect-error get_world_state takes no args
  await client.call('get_world_state', { x: 1 });
}
