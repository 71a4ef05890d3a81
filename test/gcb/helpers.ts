// Shared by the client, gcb and MCP tests: run bin/gcb.js as a subprocess, and point a config dir's
// bridge.toml at a bridge that listens on a port picked at start (port 0).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.ts';

export const ROOT = REPO_ROOT;
export const GCB = join(ROOT, 'bin/gcb.js');

/** Writes `[Bridge] port = port` into the config dir's bridge.toml (the bridge reads the port only at start). */
export function pinPort(configDir: string, port: number): void {
  const path = join(configDir, 'bridge.toml');
  const text = readFileSync(path, 'utf8');
  writeFileSync(
    path,
    /^port = \d+/m.test(text) ? text.replace(/^port = \d+/m, `port = ${port}`) : text.replace(/^\[Bridge\]\n/m, `[Bridge]\nport = ${port}\n`),
  );
}

/** A loopback port nothing listens on (taken and released at once). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface GcbRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/gcb.js ...args`, to the end. GCB_TOKEN comes only from `env` (never from the test's own environment). */
export function gcb(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<GcbRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env };
  const child = spawn(process.execPath, [GCB, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** A long-running gcb (serve, mcp --http): resolves once its first stdout line is out. */
export async function gcbServer(args: string[], options: { env?: Record<string, string> } = {}) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env };
  const child = spawn(process.execPath, [GCB, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`gcb ${args.join(' ')} exited with ${code} before its first line: ${stderr}`)));
  });
  return { child, line, exited, stdout: () => stdout, stderr: () => stderr };
}

/** runGcb in this process, with its own streams: fast, and able to pretend stdout is a terminal. */
export async function gcbIn(argv: string[], options: { env?: Record<string, string>; input?: string; isTTY?: boolean } = {}): Promise<GcbRun> {
  const { runGcb } = await import('../../src/cli/gcb.ts');
  let stdout = '';
  let stderr = '';
  const code = await runGcb(argv, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    isTTY: options.isTTY ?? false,
    env: { ...options.env },
    readStdin: () => options.input ?? '',
  });
  return { code: code ?? null, stdout, stderr };
}
