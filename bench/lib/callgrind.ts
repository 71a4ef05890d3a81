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

/** Counts one process's main-thread instructions around pieces of work. */
export class MainThreadCounter {
  #dumps = 0;
  constructor(
    readonly pid: number,
    readonly outFile: string,
  ) {}

  /** Instructions of the main thread while `work` runs (collection on, then off, then dumped). */
  async count(work: () => Promise<unknown>): Promise<number> {
    await run('callgrind_control', ['-i', 'on', String(this.pid)]);
    await work();
    await run('callgrind_control', ['-i', 'off', String(this.pid)]);
    await run('callgrind_control', ['-d', String(this.pid)]);
    const file = `${this.outFile}.${++this.#dumps}-01`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const totals = existsSync(file) ? /^totals: (\d+)/m.exec(readFileSync(file, 'utf8')) : null;
      if (totals) return Number(totals[1]);
      if (Date.now() > deadline) throw new Error(`callgrind wrote no totals to ${file} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
