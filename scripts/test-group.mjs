// `node scripts/test-group.mjs FILE...`: several compiled tap files in one process, for
// scripts/test.mjs (which sets TAP_TIMEOUT, the group's root timeout in seconds). A file (not `-e`) because worker threads inherit the exec arguments.
//
// Each file is imported by a subtest of the root, and only once the tests of the file before it
// have run: a file's top-level code (a world initialised, a bridge started) then runs right before
// its own tests, as it does alone, not before every earlier file's. Its tests are queued on the
// root behind the subtest that imported it, and the next file's import behind them.
import { pathToFileURL } from 'node:url';
import { t as root } from 'tap';

const files = process.argv.slice(2);
const timeoutMs = Number(process.env.TAP_TIMEOUT) * 1000;
const importFrom = (index) => {
  const file = files[index];
  if (file === undefined) return;
  root.test(`load ${file}`, async (t) => {
    await import(pathToFileURL(file).href);
    // A file's own root timeout (t.setTimeout at its top) would replace the group's.
    root.setTimeout(timeoutMs);
    t.pass('loaded');
    importFrom(index + 1);
  });
};
importFrom(0);
