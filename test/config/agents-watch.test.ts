// decisions §10: agents.json read again while the bridge runs (watchAgents). Unit tests, fast enough
// for `npm run mutate -- config` to run them once a mutant: every reload here is called by the test,
// except in the timer case.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { watchAgents } from '../../src/config/agents-watch.ts';
import type { AgentsConfig } from '../../src/config/agents.ts';
import { tempDir, until } from '../helpers/bridge.ts';
import { captureLog } from '../helpers/log.ts';

const TOK = (n: number) => `token-${String(n).padStart(12, '0')}-ABCDEFGHJKLMNPQR`;
const file = (...ids: string[]) => JSON.stringify({ agents: ids.map((id, n) => ({ id, token: TOK(n + 1), role: 'faction_player' })) });

declare namespace Tap {
  type Test = import('tap').Test;
}

function setup(t: Tap.Test, options: { multiAgent?: boolean; initial?: string | null; intervalMs?: number; onValid?: (c: AgentsConfig) => void } = {}) {
  const dir = tempDir();
  const path = join(dir, 'agents.json');
  const initial = options.initial === undefined ? file('a') : options.initial;
  if (initial !== null) writeFileSync(path, initial);
  const { log, lines } = captureLog<{ level: number; msg: string }>();
  const valid: AgentsConfig[] = [];
  const invalid: string[] = [];
  const watch = watchAgents({
    path,
    multiAgent: options.multiAgent ?? true,
    initialText: options.multiAgent === false ? undefined : (initial ?? undefined),
    maxConcurrent: 8,
    intervalMs: options.intervalMs ?? 60_000,
    log,
    onValid: options.onValid ?? ((c) => valid.push(c)),
    onInvalid: (reason) => invalid.push(reason),
  });
  t.teardown(() => watch.stop());
  const warnings = () => lines.filter((l) => l.level === 40).map((l) => l.msg);
  return { dir, path, watch, lines, valid, invalid, warnings };
}

t.test('the text the session was built from is not applied again; a change is, once', async (t) => {
  const s = setup(t);
  await s.watch.reload();
  t.same(s.valid, [], 'unchanged since startup: nothing to apply');
  writeFileSync(s.path, file('a', 'b'));
  await s.watch.reload();
  await s.watch.reload();
  t.equal(s.valid.length, 1, 'applied once per change');
  t.same(
    s.valid[0]!.agents.map((a) => a.id),
    ['a', 'b'],
  );
  t.equal(s.valid[0]!.path, s.path);
  t.same(s.invalid, []);
  t.same(s.warnings(), []);
});

t.test('an invalid file changes nothing, and is named in one warning per change of its content', async (t) => {
  const s = setup(t);
  writeFileSync(s.path, '{"agents": [');
  await s.watch.reload();
  await s.watch.reload();
  t.same(s.valid, []);
  t.equal(s.invalid.length, 1);
  t.match(s.invalid[0], /^\S*agents\.json: not valid JSON/);
  t.same(s.warnings().length, 1);
  t.match(s.warnings()[0], /^agents\.json not applied, the last good one stays: .*agents\.json: not valid JSON/);
  writeFileSync(s.path, JSON.stringify({ agents: [] }));
  await s.watch.reload();
  t.equal(s.invalid.length, 2, 'another broken content: another warning');
  t.match(s.invalid[1], /agents must list at least one agent/);
  writeFileSync(s.path, file('c'));
  await s.watch.reload();
  t.same(
    s.valid.map((c) => c.agents[0]!.id),
    ['c'],
    'a valid file after broken ones is applied',
  );
  for (const line of s.lines) t.notMatch(JSON.stringify(line), /token-0/, 'no line carries a token');
});

t.test('an unreadable file is a warning naming the error code; the agents stay', async (t) => {
  const s = setup(t);
  rmSync(s.path);
  mkdirSync(s.path); // reading a directory: EISDIR
  await s.watch.reload();
  t.same(s.invalid, [`${s.path}: cannot read (EISDIR)`]);
  t.same(s.valid, []);
  t.equal(s.warnings().length, 1);
});

t.test('a removed file keeps the agents (never back to legacy mode) with one warning; its return is applied', async (t) => {
  const s = setup(t);
  rmSync(s.path);
  await s.watch.reload();
  await s.watch.reload();
  t.same(s.valid, []);
  t.same(s.invalid, []);
  t.equal(s.warnings().length, 1);
  t.match(s.warnings()[0], /agents\.json was removed; the agents stay as they were/);
  writeFileSync(s.path, file('a'));
  await s.watch.reload();
  t.equal(s.valid.length, 1, 'the same file written back is a change from "absent"');
});

t.test('legacy mode: agents.json appearing is one warning (restart needed), never applied', async (t) => {
  const s = setup(t, { multiAgent: false, initial: null });
  await s.watch.reload();
  t.same(s.warnings(), [], 'still absent: nothing to say');
  writeFileSync(s.path, file('a'));
  await s.watch.reload();
  await s.watch.reload();
  t.same(s.valid, []);
  t.same(s.invalid, []);
  t.equal(s.warnings().length, 1);
  t.match(s.warnings()[0], /agents\.json appeared; multi-agent mode starts only with a restart of the bridge/);
  rmSync(s.path);
  await s.watch.reload();
  t.equal(s.warnings().length, 1, 'removed again in legacy mode: silent');
});

t.test('a reload asked for while one runs reads again after it, shared by every such call', async (t) => {
  const s = setup(t);
  const first = s.watch.reload();
  await Promise.resolve(); // the first read has started
  writeFileSync(s.path, file('a', 'late'));
  const second = s.watch.reload();
  const third = s.watch.reload();
  t.equal(second, third, 'calls that come meanwhile share the one queued read');
  t.not(first, second);
  await third;
  t.same(
    s.valid.at(-1)?.agents.map((a) => a.id),
    ['a', 'late'],
    'the change made during the first read is not missed',
  );
});

t.test('a failing handler is logged, and later reloads still run', async (t) => {
  let calls = 0;
  const s = setup(t, {
    onValid: () => {
      calls++;
      throw new Error('session refused it');
    },
  });
  writeFileSync(s.path, file('a', 'b'));
  await s.watch.reload();
  t.equal(calls, 1);
  t.ok(s.lines.some((l) => l.level === 50 && l.msg === 'agents.json reload failed'));
  writeFileSync(s.path, file('a', 'c'));
  await s.watch.reload();
  t.equal(calls, 2);
});

t.test('the timer reads on its own until stopped', async (t) => {
  const s = setup(t, { intervalMs: 20 });
  writeFileSync(s.path, file('a', 'b'));
  await until(() => s.valid.length === 1, 5000, 'the timer to apply the change');
  writeFileSync(s.path, file('a', 'b', 'c'));
  await until(() => s.valid.length === 2, 5000, 'the timer to apply the second change');
  s.watch.stop();
  writeFileSync(s.path, file('d'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(s.valid.length, 2, 'stopped: no more reads');
});

t.test('a read in flight when stop() is called applies nothing', async (t) => {
  const s = setup(t, { intervalMs: 60_000 });
  writeFileSync(s.path, file('a', 'b'));
  const reading = s.watch.reload();
  s.watch.stop();
  await reading;
  t.equal(s.valid.length, 0, 'the change read after stop() was not applied');
  await s.watch.reload();
  t.equal(s.valid.length, 0, 'nor is a reload asked for after it');
});

t.test('each warning names the file in its `agents` field; a failing reload logs the error in `err`', async (t) => {
  const legacy = setup(t, { multiAgent: false, initial: null });
  writeFileSync(legacy.path, file('a'));
  await legacy.watch.reload();
  const s = setup(t, {
    onValid: () => {
      throw new Error('session refused it');
    },
  });
  writeFileSync(s.path, '{');
  await s.watch.reload();
  rmSync(s.path);
  await s.watch.reload();
  writeFileSync(s.path, file('a', 'b'));
  await s.watch.reload();
  const fields = (lines: Array<Record<string, unknown>>) =>
    lines.map(({ level, agents, err }) => ({ level, agents, err: (err as { message?: string })?.message }));
  t.same(fields(legacy.lines), [{ level: 40, agents: legacy.path, err: undefined }], 'appeared in legacy mode');
  t.same(fields(s.lines), [
    { level: 40, agents: s.path, err: undefined }, // not applied
    { level: 40, agents: s.path, err: undefined }, // removed
    { level: 50, agents: undefined, err: 'session refused it' },
  ]);
});

t.test('an empty file is a broken file, not an absent one', async (t) => {
  const s = setup(t);
  writeFileSync(s.path, '');
  await s.watch.reload();
  t.equal(s.invalid.length, 1);
  t.match(s.invalid[0], /agents\.json: not valid JSON/);
  t.same(s.warnings().length, 1);
  const legacy = setup(t, { multiAgent: false, initial: null });
  writeFileSync(legacy.path, '');
  await legacy.watch.reload();
  t.match(legacy.warnings(), [/agents\.json appeared; multi-agent mode starts only with a restart/], 'an empty file appearing is named too');
});
