// docs/architecture.md's layers are the ones lint checks (.dependency-cruiser.cjs), and the rules
// built from them refuse what the layer order forbids. The rules are read as dependency-cruiser
// reads them (a list of paths is any of its regular expressions), without running it.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.ts';

interface Rule {
  name: string;
  from: { path?: string | string[]; pathNot?: string | string[] };
  to: { path?: string | string[]; pathNot?: string | string[]; circular?: boolean };
}

// From the repository root, not this file: `npm test` runs a compiled copy under .build/.
const ROOT = pathToFileURL(`${REPO_ROOT}/`);
const config = createRequire(import.meta.url)(join(REPO_ROOT, '.dependency-cruiser.cjs')) as { forbidden: Rule[]; layers: string[][] };

const matches = (patterns: string | string[] | undefined, path: string) =>
  patterns === undefined || [patterns].flat().some((pattern) => new RegExp(pattern).test(path));
const misses = (patterns: string | string[] | undefined, path: string) => patterns === undefined || !matches(patterns, path);

/** The rules that refuse an import of `to` by `from` (cycles aside). */
function refusedBy(from: string, to: string): string[] {
  return config.forbidden
    .filter((rule) => rule.to.circular === undefined)
    .filter((rule) => matches(rule.from.path, from) && misses(rule.from.pathNot, from) && matches(rule.to.path, to) && misses(rule.to.pathNot, to))
    .map((rule) => rule.name);
}

t.test('the docs list the layers lint checks, in the same order', async (t) => {
  const text = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
  const section = text.slice(text.indexOf('## Layers'), text.indexOf('\n## ', text.indexOf('## Layers') + 1));
  const documented = [...section.matchAll(/^- \*\*(\d+)\*\* ((?:`[^`]+`(?:, )?)+):/gm)].map((m) => ({
    index: Number(m[1]),
    paths: [...m[2]!.matchAll(/`([^`]+)`/g)].map((p) => p[1]!),
  }));
  t.same(
    documented.map((layer) => layer.index),
    config.layers.map((_, index) => index),
    'numbered from 0, one entry per layer',
  );
  t.same(
    documented.map((layer) => layer.paths),
    config.layers,
  );
});

t.test('every folder and file at the top of src/ has a layer, and every layer path exists', async (t) => {
  const placed = new Set(config.layers.flat());
  for (const entry of readdirSync(new URL('src/', ROOT), { withFileTypes: true })) {
    const path = `src/${entry.name}${entry.isDirectory() ? '/' : ''}`;
    t.ok(placed.has(path), `${path} has a layer`);
  }
  for (const path of placed) t.ok(existsSync(new URL(path, ROOT)), `${path} exists`);
});

t.test('an import from a higher layer is refused by the layer rule of the importer', async (t) => {
  for (const [from, to, rule] of [
    ['src/shared/protocol.ts', 'src/events/collector.ts', 'layer-shared'],
    ['src/errors/bridge-error.ts', 'src/shared/layout.ts', 'layer-errors'],
    ['src/commands/define.ts', 'src/dispatch/jobs.ts', 'layer-commands'],
    ['src/dispatch/drain.ts', 'src/events/hub.ts', 'layer-dispatch'],
    ['src/session/live-agents.ts', 'src/events/hub.ts', 'layer-session'],
    ['src/http/app.ts', 'src/metrics/index.ts', 'layer-http'],
    ['src/http/routes/cmd.ts', 'src/events/audit.ts', 'layer-http'],
    ['src/game/world.ts', 'src/http/respond.ts', 'layer-game'],
    ['src/limits.ts', 'src/errors/codes.ts', 'layer-limits'],
    ['src/bridge.ts', 'src/cli/gcb.ts', 'layer-bridge'],
  ]) {
    t.same(refusedBy(from!, to!), [rule], `${from} → ${to}`);
  }
});

t.test('an import from another folder of the same layer is refused', async (t) => {
  t.same(refusedBy('src/auth/credentials.ts', 'src/log/logger.ts'), ['layer-auth']);
  t.same(refusedBy('src/events/routes.ts', 'src/metrics/index.ts'), ['layer-events']);
  t.same(refusedBy('src/game-api.ts', 'src/game/world.ts'), ['layer-game-api']);
  t.same(refusedBy('src/limits.ts', 'src/package-root.ts'), ['layer-limits']);
});

t.test('a module in no layer is refused, as importer and as imported', async (t) => {
  t.same(refusedBy('src/new-part/x.ts', 'src/limits.ts'), ['layer-unassigned']);
  t.same(refusedBy('src/http/app.ts', 'src/new-part/x.ts'), ['layer-unassigned-target']);
  t.same(refusedBy('src/limits.tsx', 'src/limits.ts'), ['layer-unassigned'], 'a file path matches that file only');
  t.same(refusedBy('src/errors-extra/x.ts', 'src/limits.ts'), ['layer-unassigned'], 'a folder path matches that folder only');
});

t.test('imports down, inside a folder, and from the thread entries are allowed', async (t) => {
  for (const [from, to] of [
    ['src/shared/protocol.ts', 'src/errors/bridge-error.ts'],
    ['src/events/routes.ts', 'src/http/context.ts'],
    ['src/dispatch/drain.ts', 'src/commands/define.ts'],
    ['src/http/routes/cmd.ts', 'src/idempotency/store.ts'],
    ['src/http/app.ts', 'src/http/routes/cmd.ts'],
    ['src/commands/action/spawn.ts', 'src/commands/shared/checks.ts'],
    ['src/version.ts', 'src/package-root.ts'],
    ['src/cli/gcb.ts', 'src/main.ts'],
    ['workers/game-thread.ts', 'src/dispatch/drain.ts'],
    ['src/http/body.ts', 'node_modules/hono/dist/index.js'],
  ]) {
    t.same(refusedBy(from!, to!), [], `${from} → ${to}`);
  }
});

t.test('a cycle between files is refused anywhere in src/ and workers/', async (t) => {
  const cycles = config.forbidden.filter((rule) => rule.to.circular === true);
  t.equal(cycles.length, 1);
  t.ok(matches(cycles[0]!.from.path, 'src/game/events.ts'));
  t.ok(matches(cycles[0]!.from.path, 'workers/game-thread.ts'));
});
