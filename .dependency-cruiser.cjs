// The layer order of src/ (docs/architecture.md: Layers), checked by `npm run lint`. dependency-cruiser
// states the order as rules over the import graph, type-only imports included, and finds cycles
// between files; a back-arrow fails lint instead of waiting for a review.
//
// LAYERS runs bottom to top. A module may import from a lower layer only: not from a higher one, and
// not from another folder of its own layer, so two folders never import each other. A folder of src/
// that is in no layer fails too, until it is given its place here and in docs/architecture.md.

/** [paths, what the layer owns], bottom first. A path ending in `/` is a folder, any other a file. */
const LAYERS = [
  [['src/limits.ts', 'src/package-root.ts'], 'every limit and timing of the spec; where the package sits'],
  [['src/errors/', 'src/version.ts'], 'the error-code table, the error class and its plain form (Failure, Outcome); mod_version'],
  [['src/shared/'], 'what crosses threads: protocol messages, shared-memory layout, caller, game-module interface'],
  [['src/game/', 'src/game-api.ts'], 'the sandbox world and what a game module may import'],
  [['src/log/', 'src/auth/', 'src/admission/', 'src/idempotency/'], 'the parts of a request: log line, credential, slot, kept answers'],
  [['src/config/'], 'bridge.toml and agents.json'],
  [['src/commands/'], 'command definitions: schema, type and handler'],
  [['src/dispatch/'], 'the pool and the game-thread queue that run commands'],
  [['src/session/'], 'turn, bus, objectives and live agents'],
  [['src/http/'], 'the HTTP core: createApp, the credential check, answers, /cmd /health /capabilities'],
  [['src/events/', 'src/metrics/', 'src/view/', 'src/batch/'], 'features that plug into the HTTP core'],
  [['src/client/'], 'the HTTP client library'],
  [['src/mcp/'], 'MCP servers over the client'],
  [['src/bridge.ts'], 'wiring: starts and stops every part'],
  [['src/main.ts', 'src/index.ts'], 'the process entry and the package entry'],
  [['src/cli/'], 'gcb'],
  [['workers/'], 'thread entries'],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pattern = (paths) => paths.map((path) => `^${escape(path)}${path.endsWith('/') ? '' : '$'}`);
const name = (path) => path.replace(/^src\//, '').replace(/(\/|\.ts)$/, '');

const layerRules = LAYERS.flatMap(([paths, owns], index) => {
  const above = LAYERS.slice(index + 1).flatMap(([higher]) => higher);
  return paths.flatMap((path) => {
    const siblings = paths.filter((other) => other !== path);
    if (siblings.length + above.length === 0) return [];
    return {
      name: `layer-${name(path)}`,
      severity: 'error',
      comment: `${path} (layer ${index}: ${owns}) imports only from lower layers: not from ${[...siblings, ...above].join(', ')}`,
      from: { path: pattern([path]) },
      to: { path: pattern([...siblings, ...above]) },
    };
  });
});

const everyLayer = pattern(LAYERS.flatMap(([paths]) => paths));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other cannot be read, tested or loaded one at a time: give the shared part its own module, or pass it in.',
      from: { path: '^(src|workers)/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'layer-unassigned',
      severity: 'error',
      comment: 'Every module of src/ belongs to a layer: add its folder to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md.',
      from: { path: '^src/', pathNot: everyLayer },
      to: {},
    },
    {
      name: 'layer-unassigned-target',
      severity: 'error',
      comment: 'Every module of src/ belongs to a layer: add its folder to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md.',
      from: {},
      to: { path: '^src/', pathNot: everyLayer },
    },
  ],
  options: {
    // Type-only imports are dependencies too: a type from a higher layer ties the layers as much.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    // Resolve packages' `exports` subpaths (hono/streaming, @modelcontextprotocol/sdk/...).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    skipAnalysisNotInRules: true,
  },
};
