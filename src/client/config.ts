// Reads what a client needs from a config dir: where the bridge listens and the legacy token. It only
// reads: creating bridge.toml (and its token) is the bridge's job on first launch. A running bridge
// names its URL in the runtime file beside bridge.toml, which wins while its pid is alive (it may
// listen where bridge.toml does not say: --port N, --port 0).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import toml from 'toml';
import { readRuntime } from '../shared/runtime-file.ts';
import { ClientConfigError } from './errors.ts';

/** decisions §1: the default config dir and port. */
export const DEFAULT_CONFIG_DIR = '.bridge';
export const DEFAULT_PORT = 8723;

export interface BridgeLocation {
  /** The bridge.toml that was read. */
  path: string;
  /** `http://127.0.0.1:<port>`: the bridge only ever listens on loopback. */
  url: string;
  port: number;
  /** Where the URL came from: the running bridge's runtime file, or bridge.toml's port. */
  source: 'runtime' | 'config';
  /** `[Bridge] token`, the legacy-mode credential (absent from a hand-written file). */
  token: string | undefined;
}

export function readBridgeConfig(configDir: string = DEFAULT_CONFIG_DIR): BridgeLocation {
  const path = join(resolve(configDir), 'bridge.toml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ClientConfigError(
        `no bridge.toml in ${resolve(configDir)}: start the bridge once (gcb serve --config-dir ${configDir}) to create it, or pass --url URL with GCB_TOKEN`,
      );
    }
    throw new ClientConfigError(`${path}: cannot read: ${(err as Error).message}`);
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = toml.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new ClientConfigError(`${path}: not valid TOML: ${(err as Error).message}`);
  }
  const section = parsed.Bridge;
  const bridge = typeof section === 'object' && section !== null ? (section as Record<string, unknown>) : {};
  const port = bridge.port ?? DEFAULT_PORT;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ClientConfigError(`${path}: [Bridge] port = ${JSON.stringify(port)} is not a port`);
  }
  const token = typeof bridge.token === 'string' && bridge.token !== '' ? bridge.token : undefined;
  const running = readRuntime(resolve(configDir));
  if (running?.url !== undefined && running.port !== undefined) return { path, url: running.url, port: running.port, token, source: 'runtime' };
  return { path, url: `http://127.0.0.1:${port}`, port, token, source: 'config' };
}
