// npm test runs the compiled tree with test/build.taprc; `npx tap FILE` runs sources with .taprc.
// tap rebuilds itself whenever its plugin list changes, so the two must list the same plugins.
// scripts/test-lanes.mjs says which files share a process or run beside the CPU slots.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

t.test("npm test's lanes name files that exist, each in one lane", async (t) => {
  const lanes = await import(pathToFileURL(join(REPO_ROOT, 'scripts/test-lanes.mjs')).href);
  const named: string[] = [...lanes.CLOCK_LANE, ...Object.keys(lanes.TYPICAL_SECONDS), ...lanes.SHARED_PROCESS];
  t.same(
    named.filter((file) => !existsSync(join(REPO_ROOT, file))),
    [],
    'a renamed or deleted file is renamed or removed in scripts/test-lanes.mjs too',
  );
  t.same(
    [...lanes.SHARED_PROCESS].filter((file) => lanes.CLOCK_LANE.has(file)),
    [],
    'no clock-lane file shares a process',
  );
  // The sandbox game keeps one world per module: these files test it before any init.
  for (const file of ['test/game/module.test.ts', 'test/game/ui.test.ts']) t.notOk(lanes.SHARED_PROCESS.has(file), `${file} runs alone`);
});
