// Piscina's entry for the compiled bridge, in CommonJS on purpose. piscina loads its entry with
// require() first; on Node 20.19+ require() of an ES module aborted the whole process here ("FATAL
// ERROR: v8::Module::IsGraphAsync must be used on an instantiated module", 3 of 6 processes that
// each started and closed 8 bridges). A CommonJS file is required as one, and the real entry
// (workerData.entry, an ES module) is loaded with import() alone.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file's import form under verbatimModuleSyntax
import workerThreads = require('node:worker_threads');

type RunTask = (task: unknown) => Promise<unknown>;

const entry: Promise<{ default: RunTask }> = import((workerThreads.workerData as { entry: string }).entry);
// A failed load fails each task (piscina answers it as the worker's error), not the thread itself.
entry.catch(() => {});

async function runTask(task: unknown): Promise<unknown> {
  return (await entry).default(task);
}

export = runTask;
