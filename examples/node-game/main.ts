// Embedding the bridge in a Node-hosted game (README: Embedding):
//   node --import tsx examples/node-game/main.ts [--config-dir DIR] [--port N]
// then, with the token from DIR/bridge.toml (or `gcb token --config-dir DIR`):
//   curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
//        -d '{"name":"spawn","args":{"entity_id":"sheep","x":10,"y":12}}' http://127.0.0.1:PORT/cmd
// The package imports itself by name: from sources under tsx (tsconfig.json `paths`), from dist/
// once built and installed (package.json `exports`).
import { parseArgs } from 'node:util';
import { startBridge } from 'game-control-bridge';

const { values } = parseArgs({ options: { 'config-dir': { type: 'string' }, port: { type: 'string' } } });

const bridge = await startBridge({
  game: new URL('./game.ts', import.meta.url),
  configDir: values['config-dir'] ?? '.bridge-example',
  port: values.port === undefined ? 8724 : Number(values.port),
});
console.log(`sheep field bridge on ${bridge.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void bridge.close().then(() => process.exit(0));
  });
}
