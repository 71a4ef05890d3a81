// The layer order of src/ (docs/architecture.md: Layers), checked by `npm run lint`. dependency-cruiser
// states the order as rules over the import graph, type-only imports included, and finds cycles
// between files, so a back-arrow fails lint instead of waiting for a review.
//
// LAYERS runs bottom to top. A module imports from lower layers only: never from a higher layer nor
// from another folder of its own layer, so no two folders import each other. A module of src/ in no
// layer fails too, until its folder has a place here and in the docs (test/docs/layers.test.ts
// keeps the two tables equal). A path ending in `/` is a folder, any other a file.
const LAYERS = [
  ['src/limits.ts', 'src/package-root.ts'],
  ['src/errors/', 'src/version.ts'],
  ['src/shared/'],
  ['src/game/', 'src/game-api.ts'],
  ['src/log/', 'src/auth/', 'src/admission/', 'src/idempotency/'],
  ['src/config/'],
  ['src/commands/'],
  ['src/dispatch/'],
  ['src/session/'],
  ['src/http/'],
  ['src/events/', 'src/metrics/', 'src/view/'],
  ['src/client/'],
  ['src/mcp/'],
  ['src/bridge.ts'],
  ['src/main.ts', 'src/index.ts'],
  ['src/cli/'],
  ['workers/'],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pattern = (paths) => paths.map((path) => `^${escape(path)}${path.endsWith('/') ? '' : '$'}`);
const ruleName = (path) => `layer-${path.replace(/^src\//, '').replace(/(\/|\.ts)$/, '')}`;

const layerRules = LAYERS.flatMap((paths, index) => {
  const above = LAYERS.slice(index + 1).flat();
  return paths.flatMap((path) => {
    const banned = [...paths.filter((other) => other !== path), ...above];
    if (banned.length === 0) return [];
    return {
      name: ruleName(path),
      severity: 'error',
      comment: `${path} is in layer ${index} (docs/architecture.md: Layers): it imports from lower layers only, not from ${banned.join(', ')}`,
      from: { path: pattern([path]) },
      to: { path: pattern(banned) },
    };
  });
});

const unassigned = 'Every module of src/ belongs to a layer: give its folder a place in LAYERS (.dependency-cruiser.cjs) and in docs/architecture.md.';
const everyLayer = pattern(LAYERS.flat());

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other cannot be read, tested or loaded one at a time: move the shared part into a module of its own, or pass it in.',
      from: { path: '^(src|workers)/' },
      to: { circular: true },
    },
    ...layerRules,
    { name: 'layer-unassigned', severity: 'error', comment: unassigned, from: { path: '^src/', pathNot: everyLayer }, to: {} },
    { name: 'layer-unassigned-target', severity: 'error', comment: unassigned, from: {}, to: { path: '^src/', pathNot: everyLayer } },
  ],
  options: {
    // A type from a higher layer ties the layers as much as a value does.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    // Resolve packages' `exports` subpaths (hono/streaming, @modelcontextprotocol/sdk/...).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    skipAnalysisNotInRules: true,
  },
};

// For test/docs/layers.test.ts; not enumerable, since dependency-cruiser accepts only its own keys.
Object.defineProperty(module.exports, 'layers', { value: LAYERS });
