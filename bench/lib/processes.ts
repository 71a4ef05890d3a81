// Child processes of the benchmark: reference servers, the bridge, and the load generator.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TSX = ['--import', 'tsx'];

let stderrFiles = 0;

/**
 * A server's stderr, as `npm start 2> file` has it: a file, so the bridge's request lines are written
 * as users' are (to a real destination, in the kernel) rather than to a pipe this process would have
 * to drain. The file is removed once the server has stopped as asked; when it ended any other way its
 * last lines are copied to this process's stderr and the file is kept.
 */
function stderrFile(name: string): { fd: number; path: string; ended(expected: boolean): void } {
  const path = join(tmpdir(), `gcb-bench-${process.pid}-${++stderrFiles}-${name}.stderr`);
  const fd = openSync(path, 'w');
  return {
    fd,
    path,
    ended(expected) {
      if (expected) {
        rmSync(path, { force: true });
        return;
      }
      const tail = tailOf(path, 4096);
      process.stderr.write(`${name} ended unexpectedly; the end of its stderr (${path}):\n${tail}\n`);
    },
  };
}

/** The last `bytes` of a file, as text. */
function tailOf(path: string, bytes: number): string {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export interface LoadResult {
  rps: number;
  total: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: Array<{ method?: string; path?: string; headers?: Record<string, string>; body?: string }>;
  /** autocannon replaces `[<id>]` in each request (headers included) with a fresh id. */
  idReplacement?: boolean;
  /** Exactly this many requests, however long they take (`duration` then only bounds the run). */
  amount?: number;
}

/**
 * Load generators: autocannon in processes of their own (never the loop of the server it measures),
 * each kept for the next run, since a fresh process with tsx costs 0.5 to 1 s of start-up and a
 * quick run makes about 80 runs. Idle ones hold nothing open, so the bench exits without closing them.
 */
const idleGenerators: ChildProcess[] = [];

function generator(): ChildProcess {
  const child =
    idleGenerators.pop() ?? fork(new URL('../load.ts', import.meta.url).pathname, [], { execArgv: TSX, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.ref();
  child.channel?.ref();
  return child;
}

function release(child: ChildProcess): void {
  child.unref();
  child.channel?.unref();
  idleGenerators.push(child);
}

/**
 * One autocannon run; bounded by `duration` (+ a grace, then the generator is killed). `signal`
 * ends it early: the answers so far are its result.
 */
export function load(options: LoadOptions, signal?: AbortSignal): Promise<LoadResult> {
  const child = generator();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), (options.duration + 30) * 1000);
    const stop = () => child.send({ type: 'stop' });
    signal?.addEventListener('abort', stop, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: { type: 'result'; result: LoadResult } | { type: 'error'; message: string }) => {
      settle();
      release(child);
      if (message.type === 'error') reject(new Error(`load generator: ${message.message}`));
      else resolve(message.result);
    };
    const onExit = (code: number | null, signalName: NodeJS.Signals | null) => {
      settle();
      reject(new Error(`load generator exited ${code ?? signalName}`));
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send({ type: 'run', options });
    if (signal?.aborted) stop();
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A reference server that prints `READY <url>`; `prefix` runs node under another command (valgrind). */
export function startServer(file: string, args: string[] = [], prefix: string[] = [], nodeFlags: string[] = []): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const [command, ...commandArgs] = [...prefix, process.execPath, ...nodeFlags, ...TSX, new URL(`../servers/${file}`, import.meta.url).pathname, ...args];
    const stderr = stderrFile(file.replace(/\.[a-z]+$/, ''));
    const child = spawn(command!, commandArgs, { stdio: ['ignore', 'pipe', stderr.fd] });
    closeSync(stderr.fd);
    let stopping = false;
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\S+)/.exec(out);
      if (match) {
        resolve({
          url: match[1]!,
          child,
          stop: () => {
            stopping = true;
            return stopChild(child, 'SIGTERM');
          },
        });
      }
    });
    child.once('exit', (code) => {
      stderr.ended(stopping);
      reject(new Error(`${file} exited ${code}`));
    });
  });
}

export interface BridgeProcess {
  url: string;
  token: string;
  child: ChildProcess;
  request<T>(type: string): Promise<T>;
  stop(): Promise<void>;
}

export interface BridgeStatsReply {
  stats: {
    slotsInUse: number;
    waiting: number;
    frames: {
      frames: number;
      busyFrames: number;
      actions: number;
      items: number;
      fullFrames: number;
      fullFrameOverheadMsAvg: number;
      fullFrameOverheadMsMax: number;
      busyFrameOverheadMsAvg: number;
    };
  };
  rss: number;
  heap: number;
  counters: number[] | null;
}

/** The bridge in a forked process with an IPC channel for stats. */
export function startBridgeProcess(options: {
  configDir: string;
  game?: string;
  counters?: boolean;
  gameOptions?: Record<string, unknown>;
  /** Another build's dist/ directory to run instead of this tree's (bench/profile.ts --versus). */
  dist?: string;
  /** startBridge's `metrics` (decisions §9); default on. */
  metrics?: boolean;
  /** startBridge's `timings`: shorter deadlines than the spec's, for the quick run's timeout scenario. */
  timings?: Record<string, number>;
  /** Runs node under this command (valgrind, bench/lib/callgrind.ts); its process keeps the pid. */
  prefix?: string[];
  /** More flags for node (bench/lib/callgrind.ts's NODE_FLAGS). */
  nodeFlags?: string[];
}): Promise<BridgeProcess> {
  return new Promise((resolve, reject) => {
    // The compiled bridge (npm run bench builds it first), as npm start runs it: its own logger at
    // its default level (a GCB_LOG_LEVEL set in this shell is not passed on), stderr to a file.
    const [execPath, ...prefixArgs] = options.prefix ?? [];
    const env = { ...process.env };
    delete env.GCB_LOG_LEVEL;
    const stderr = stderrFile('bridge');
    const child = fork(new URL('../servers/bridge.mjs', import.meta.url).pathname, [JSON.stringify(options)], {
      ...(execPath
        ? { execPath, execArgv: [...prefixArgs, process.execPath, '--expose-gc', ...(options.nodeFlags ?? [])] }
        : { execArgv: ['--expose-gc', ...(options.nodeFlags ?? [])] }),
      env: options.dist ? { ...env, GCB_BENCH_DIST: options.dist } : env,
      stdio: ['ignore', 'inherit', stderr.fd, 'ipc'],
    });
    closeSync(stderr.fd);
    let stopping = false;
    const pending: Array<{ resolve: (value: unknown) => void; reject: (error: Error) => void }> = [];
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    child.on('message', (message: { type: string; url?: string; token?: string }) => {
      if (message.type === 'ready') {
        resolve({
          url: message.url!,
          token: message.token!,
          child,
          request: <T>(type: string) =>
            new Promise<T>((done, fail) => {
              if (exited()) return fail(new Error(`the bridge has exited (${child.exitCode ?? child.signalCode})`));
              pending.push({ resolve: done as (value: unknown) => void, reject: fail });
              // A channel closing under a crash fails here; the exit below answers every waiter.
              child.send({ type }, () => {});
            }),
          stop: async () => {
            // A bridge that crashed (bench/scenarios/hostile-memory.ts provokes it) is stopped already.
            if (exited()) return;
            stopping = true;
            const exit = new Promise((done) => child.once('exit', done));
            child.send({ type: 'close' }, () => {});
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
            await exit;
            clearTimeout(timer);
          },
        });
      } else {
        pending.shift()?.resolve(message);
      }
    });
    child.once('exit', (code, signal) => {
      stderr.ended(stopping && code === 0);
      reject(new Error(`bridge exited ${code ?? signal}`));
      // Whoever waits for an answer gets the crash instead of waiting forever.
      for (const waiter of pending.splice(0)) waiter.reject(new Error(`the bridge exited (${code ?? signal})`));
    });
  });
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * CPU time (user + system, ms) the main thread of process `pid` has used so far: Linux
 * /proc/<pid>/task/<pid>/stat, whose main thread's id is the pid. Pool and game threads are not
 * counted; the kernel's share (socket reads and writes) is. null where /proc is missing.
 */
export function mainThreadCpuMs(pid: number | undefined): number | null {
  return pid === undefined ? null : statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * CPU time (ms) of the whole process `pid`, every thread: the main loop, pool and game threads, and
 * V8's and libuv's helpers (garbage collection). On 2 cores shared with the load generator, the
 * threads beside the main one take CPU from it. null where /proc is missing.
 */
export function processCpuMs(pid: number | undefined): number | null {
  return pid === undefined ? null : statCpuMs(`/proc/${pid}/stat`);
}

function statCpuMs(path: string): number | null {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, 11 and 12 after the name, in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

// USER_HZ: 100 on every Linux Node supports (getconf CLK_TCK).
const CLOCK_TICKS = 100;

/** The body of the bridge's answer to GET `path` in a file, for a bare hono reference to serve the same payload. */
export async function answerFile(bridge: BridgeProcess, path: '/capabilities' | '/health'): Promise<string> {
  const response = await fetch(`${bridge.url}${path}`, { headers: { authorization: `Bearer ${bridge.token}` } });
  const file = join(tmpdir(), `gcb-bench-${path.slice(1)}-${process.pid}.json`);
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return file;
}
