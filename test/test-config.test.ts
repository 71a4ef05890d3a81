// npm test runs the compiled tree with test/build.taprc; `npx tap FILE` runs sources with .taprc.
// tap rebuilds itself whenever its plugin list changes, so the two must list the same plugins.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from './helpers/paths.ts';

const plugins = (file: string) =>
  readFileSync(join(REPO_ROOT, file), 'utf8')
    .match(/^plugin:\n((?:\s+(?:- .*|#.*)\n)+)/m)?.[1]
    ?.split('\n')
    .filter((line) => line.trim().startsWith('-'))
    .map((line) => line.trim());

t.test('.taprc and test/build.taprc configure the same tap plugins', async (t) => {
  const dev = plugins('.taprc');
  t.ok(dev && dev.length > 0, '.taprc lists plugins');
  t.same(plugins('test/build.taprc'), dev);
});
