// Embedding the bridge in a Node-hosted game:
//   node --import tsx examples/node-game/main.ts [--config-dir DIR] [--port N]
// then, with the token from DIR/bridge.toml (or `gcb token`):
//   curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
//        -d '{"name":"get_world_state"}' http://127.0.0.1:PORT/cmd
import { parseArgs } from 'node:util';
import { startBridge } from '../../src/index.ts';

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
