// A bridge's command line in a child process, its stderr read as it comes (test/log/*).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { tempDir } from '../helpers/bridge.ts';
import { fixture, nodeArgs, REPO_ROOT } from '../helpers/paths.ts';

const TINY = fileURLToPath(fixture('tiny-game.ts'));

export async function startCli(t: Test, entry = 'src/main.ts') {
  const dir = tempDir('gcb-log-');
  const child = spawn(process.execPath, nodeArgs(entry, '--config-dir', dir, '--port', '0', '--game', TINY), {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void (child.exitCode === null && child.kill('SIGKILL')));
  let stdout = '';
  let stderr = '';
  const seen = new Map<string, number>();
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const [, rid] of stderr.matchAll(/"rid":"([^"]+)"/g)) if (!seen.has(rid!)) seen.set(rid!, performance.now());
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await until(() => stdout.includes('\n'), 60_000);
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1]!;
  const token = /token = "([A-Za-z0-9]{48})"/.exec(readFileSync(join(dir, 'bridge.toml'), 'utf8'))![1]!;
  const request = async (rid: string) => {
    const res = await fetch(`${url}/cmd`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': rid },
      body: '{"name":"health"}',
    });
    await res.text();
    return res.status;
  };
  return { child, exited, request, seen, stderr: () => stderr };
}

export async function until(predicate: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
