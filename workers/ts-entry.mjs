// Piscina entry when the bridge runs from TypeScript sources: worker threads do not inherit tsx's
// ESM hooks on Node 20, so register them here before importing the real (.ts) entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const entry = await import(workerData.entry);
export default entry.default;
