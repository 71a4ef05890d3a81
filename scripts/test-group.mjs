// `node scripts/test-group.mjs TIMEOUT_MS FILE...`: several compiled tap files in one process, for
// scripts/test.mjs. Each is imported in turn; their top-level tests become subtests of one root
// and run one after another. A file (not `-e`) because worker threads inherit the exec arguments.
import { pathToFileURL } from 'node:url';

const [timeoutMs, ...files] = process.argv.slice(2);
for (const file of files) await import(pathToFileURL(file).href);
// The files' own root timeouts (t.setTimeout at their top) each replaced the last; the group's wins.
(await import('tap')).t.setTimeout(Number(timeoutMs));
