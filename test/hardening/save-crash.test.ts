// Faults: kill -9 of the bridge during 200 saves. The bridge runs as `npm start` does, in a child
// process, on the sandbox world; save_world calls to one save name go out four at a time, the world
// changing between them (ticks, paint, compressed or not), and the process gets SIGKILL at a random
// moment. Every time, saves/<name>/world.sav is a whole save, the old or a new one: it decodes, and
// a restarted bridge loads it. Three rounds, each on the file the previous kill left; a bridge
// started after them has removed the temp files the kills left.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { decodeSave } from '../../src/game/index.ts';
import { tempDir, until } from '../helpers/bridge.ts';
import { inParallel } from './helpers.ts';
import { nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

t.setTimeout(180_000);

const SAVES = 200;
const ROUNDS = 3;
const NAME = 'crash-me';

interface Child {
  child: ChildProcess;
  url: string;
  token: string;
  exited: Promise<NodeJS.Signals | number | null>;
}

async function startChild(t: Tap.Test, dir: string): Promise<Child> {
  const child = spawn(process.execPath, nodeArgs('src/main.ts', '--config-dir', dir, '--port', '0'), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
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

t.test(`kill -9 during ${SAVES} saves, ${ROUNDS} times`, async (t) => {
  const dir = tempDir('gcb-crash-');
  const file = join(dir, 'saves', NAME, 'world.sav');
  for (let round = 1; round <= ROUNDS; round++) {
    await t.test(`round ${round}`, async (t) => {
      const c = await startChild(t, dir);
      if (round > 1) {
        const loaded = await post(c, 'load_world', { path: NAME });
        t.equal(loaded.status, 200, 'the restarted bridge loads what the last kill left');
      }
      const killAfter = 10 + Math.floor(Math.random() * (SAVES - 40));
      const sizes = new Set<number>();
      let answered = 0;
      let killed = false;
      const statuses = new Map<string, number>();
      await inParallel(
        Array.from({ length: SAVES }, (_, i) => i),
        4,
        async (i) => {
          if (killed) return;
          try {
            if (i % 5 === 0) await post(c, 'paint_tile', { x: i % 200, y: (i * 7) % 200, tile_id: i % 10 === 0 ? 'sand' : 'grass', radius: 3 });
            const saved = await post(c, 'save_world', { folder: NAME, compress: i % 3 !== 0 });
            statuses.set(String(saved.status), (statuses.get(String(saved.status)) ?? 0) + 1);
            if (saved.status === 200) sizes.add(saved.body.result.bytes as number);
            answered++;
          } catch {
            statuses.set('connection lost', (statuses.get('connection lost') ?? 0) + 1);
          }
          if (!killed && answered >= killAfter) {
            killed = true;
            // A random moment: mid-write of the saves still in flight, most likely.
            await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
            c.child.kill('SIGKILL');
          }
        },
      );
      t.equal(await c.exited, 'SIGKILL', `killed after ${answered} answered saves (${JSON.stringify(Object.fromEntries(statuses))})`);
      t.same(
        [...statuses.keys()].filter((s) => s !== '200' && s !== 'connection lost'),
        [],
        'every save answered before the kill succeeded',
      );

      const bytes = readFileSync(file);
      let decoded: ReturnType<typeof decodeSave> | undefined;
      t.doesNotThrow(() => (decoded = decodeSave(bytes)), `world.sav (${bytes.length} bytes) is a whole save that decodes`);
      t.ok(decoded && decoded.width === 256 && decoded.height === 256, 'of the live 256×256 world');
      t.comment(`world.sav has ${bytes.length} bytes: ${sizes.has(bytes.length) ? 'one of the answered saves' : 'a save whose answer the kill cut off'}`);
      const leftovers = readdirSync(join(dir, 'saves', NAME)).filter((f) => f !== 'world.sav');
      t.ok(
        leftovers.every((f) => /^\.world\.sav\.\d+\.[0-9a-f]+\.tmp$/.test(f)),
        `only temp files beside it (${leftovers.length} left by kills)`,
      );
    });
  }

  await t.test('a bridge started after the last kill removes their temp files, loads the save and saves again', async (t) => {
    const c = await startChild(t, dir);
    // Issue 10 §3: the temp files the kills left (their pids are dead) are removed at startup.
    t.same(
      readdirSync(join(dir, 'saves', NAME)).filter((f) => f !== 'world.sav'),
      [],
      'no temp file of the killed bridges is left',
    );
    t.equal((await post(c, 'load_world', { path: NAME })).status, 200);
    t.equal((await post(c, 'save_world', { folder: NAME })).status, 200);
    t.doesNotThrow(() => decodeSave(readFileSync(file)));
    c.child.kill('SIGTERM');
    t.equal(await c.exited, 0, 'and exits cleanly');
  });
});
