// Instructions a server's main thread executes, counted by valgrind's callgrind. Unlike CPU time, an
// instruction count does not move with the machine's load (2 cores shared by several people move a
// CPU figure by 30% between runs), so a change of a few percent shows. The server runs under
// valgrind (about 50× slower) with collection off; it is switched on around a fixed number of
// requests and the main thread's count (`--separate-threads`: thread 1) read from the dump.
// The kernel's share of a request (socket reads and writes) is not counted: it is the same one
// read and one writev in the bridge and the bare references.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The command prefix that starts a server under callgrind, writing to `outFile`. */
export function callgrindPrefix(outFile: string): string[] {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${outFile}`, `--log-file=${outFile}.log`];
}

/**
 * Node flags for a server under callgrind. A round takes minutes under valgrind, and the side not
 * being measured idles meanwhile: V8 then flushed the bytecode of the request path, and the next
 * round ran it from the interpreter again with fresh inline caches (a /health round read 148, then
 * 316, then 237 k instructions a request). Optimised code still arrives late (valgrind runs one
 * thread at a time, V8 compiles it on another), so rounds fall for a while: read the least of them.
 * `--no-concurrent-recompilation`, which compiles it on the main thread, made it worse: 550 to 900 k
 * instructions a /health request, rounds after rounds.
 */
export const NODE_FLAGS = ['--no-flush-bytecode'];

/**
 * The main loop's entry points that do a request's work: the socket's reads and writes (HTTP parse,
 * the handlers, the answer, with the microtasks they run), accepting a connection, and messages from
 * other threads (a pool task's answer). Left out: timers, fs polling of config watchers, immediates
 * and V8's foreground tasks, which run at a rate per second. Under valgrind a round lasts minutes,
 * so those outweighed a request's own work (they were 15 to 48 k instructions a /health request,
 * against 4 to 8 k by the same count at native speed). That leaves out the thread pool's finished
 * work too (`uv__work_done`), where a batch of request lines written to stderr ends (0.8 k
 * instructions a whoami under valgrind), because the watchers' file reads end there as well (3.4 k).
 */
const REQUEST_ENTRIES = [':uv__stream_io [', ':uv__server_io [', ':node::worker::MessagePort::OnMessage('];

/** Counts one process's main-thread instructions around pieces of work. */
export class MainThreadCounter {
  #dumps = 0;
  constructor(
    readonly pid: number,
    readonly outFile: string,
  ) {}

  /**
   * Instructions of the main thread while `work` runs (collection on, then off, then dumped): all
   * of them, and those under REQUEST_ENTRIES.
   */
  async count(work: () => Promise<unknown>): Promise<{ total: number; request: number }> {
    await run('callgrind_control', ['-i', 'on', String(this.pid)]);
    await work();
    await run('callgrind_control', ['-i', 'off', String(this.pid)]);
    await run('callgrind_control', ['-d', String(this.pid)]);
    const file = `${this.outFile}.${++this.#dumps}-01`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const totals = existsSync(file) ? /^totals: (\d+)/m.exec(readFileSync(file, 'utf8')) : null;
      if (totals) return { total: Number(totals[1]), request: await requestInstructions(file) };
      if (Date.now() > deadline) throw new Error(`callgrind wrote no totals to ${file} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The inclusive instructions of REQUEST_ENTRIES in a dump (none of them calls another). */
async function requestInstructions(file: string): Promise<number> {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 });
  let sum = 0;
  for (const entry of REQUEST_ENTRIES) {
    const line = stdout.split('\n').find((text) => text.includes(entry));
    if (line) sum += Number(line.trim().split(/\s/)[0]!.replaceAll(',', ''));
  }
  return sum;
}
