// Issue 10 §3: kill -9 during save_world leaves `.world.sav.<pid>.<hex>.tmp` files; a bridge
// removes those of dead processes in saves/ at startup (and before each save: save-files.test.ts).
// Over real processes: a bridge is killed with SIGKILL, the temp file its kill left (named with its
// pid, now dead) waits in a save folder beside one of a running process and a file of the user's,
// and the next bridge, started on the same config dir, removes the dead one alone before it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir, until } from '../helpers/bridge.ts';
import { nodeArgs } from '../helpers/paths.ts';

// Two bridges start as `npm start` does, under tsx: seconds each on a loaded machine.
t.setTimeout(120_000);

interface Child {
  child: ChildProcess;
  url: string;
  token: string;
  exited: Promise<number | NodeJS.Signals | null>;
}

async function startBridgeProcess(t: Tap.Test, dir: string): Promise<Child> {
  const child = spawn(process.execPath, nodeArgs('src/main.ts', '--config-dir', dir, '--port', '0'), { stdio: ['ignore', 'pipe', 'ignore'] });
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out) || child.exitCode !== null, 60_000, 'the bridge to start');
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
  const token = /token = "([A-Za-z0-9]{48})"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  return { child, url, token, exited };
}
declare namespace Tap {
  type Test = import('tap').Test;
}

async function post(c: Child, name: string, args: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${c.url}/cmd`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, args }),
  });
  return { status: response.status, body: await response.json() };
}

t.test('the temp files of a killed bridge are gone when the next one starts', async (t) => {
  const dir = tempDir('gcb-stale-');
  const first = await startBridgeProcess(t, dir);
  t.equal((await post(first, 'save_world', { folder: 'kept' })).status, 200);
  first.child.kill('SIGKILL');
  t.equal(await first.exited, 'SIGKILL');

  const folder = join(dir, 'saves', 'kept');
  const killed = `.world.sav.${first.child.pid}.0123456789ab.tmp`; // what a kill mid-save leaves
  const running = `.world.sav.${process.pid}.abcdefabcdef.tmp`; // a save in progress in a live process
  writeFileSync(join(folder, killed), 'half a save');
  writeFileSync(join(folder, running), 'a save in progress');
  writeFileSync(join(folder, 'notes.txt'), "the user's own file");

  const second = await startBridgeProcess(t, dir);
  t.same(readdirSync(folder).sort(), [running, 'notes.txt', 'world.sav'].sort(), "the killed bridge's temp file is gone once the next one listens");
  t.equal((await post(second, 'load_world', { path: 'kept' })).status, 200, 'the save itself is untouched');
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
