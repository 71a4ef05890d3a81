import { Worker, type WorkerOptions } from 'node:worker_threads';

// spec-free plumbing, but a trap: on Node 20 `new Worker('x.ts')` fails even when tsx is loaded,
// because the Worker constructor checks the extension itself. Every thread of the bridge starts
// here, so the same code runs from .ts (tsx, tap) and from compiled .js.
export function startThread(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const target = JSON.stringify(entry.href);
  // An inherited `--import tsx` registers its hooks asynchronously, too late for the first import of
  // an eval worker, so the bootstrap registers tsx itself before importing the entry.
  const tsxApi = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const bootstrap = `import(${tsxApi}).then((api) => { api.register(); return import(${target}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
