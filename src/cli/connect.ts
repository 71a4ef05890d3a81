// Where the bridge is and which token to send (decisions §1: the config dir holds bridge.toml).
import { BridgeClient, type ClientOptions } from '../client/client.ts';
import { DEFAULT_CONFIG_DIR, readBridgeConfig } from '../client/config.ts';
import { ClientConfigError } from '../client/errors.ts';

export interface ConnectFlags {
  'config-dir'?: string | undefined;
  url?: string | undefined;
}

export interface Connection {
  url: string;
  /** Undefined only when `optionalToken` allowed it (gcb mcp --http: each session brings its own). */
  token: string | undefined;
}

/**
 * `--url URL`: that URL, the token from GCB_TOKEN (else the config dir's bridge.toml).
 * Otherwise: `http://127.0.0.1:<port>` and the token from the config dir's bridge.toml; GCB_TOKEN,
 * when set, wins over the file's token (an agent's token in multi-agent mode).
 */
export function resolveConnection(flags: ConnectFlags, env: NodeJS.ProcessEnv = process.env, optionalToken = false): Connection {
  const envToken = env.GCB_TOKEN === undefined || env.GCB_TOKEN === '' ? undefined : env.GCB_TOKEN;
  const configDir = flags['config-dir'] ?? DEFAULT_CONFIG_DIR;
  if (flags.url !== undefined) {
    let token = envToken;
    if (token === undefined) {
      try {
        token = readBridgeConfig(configDir).token;
      } catch (err) {
        if (!optionalToken)
          throw new ClientConfigError(`--url needs a token: set GCB_TOKEN (or pass --config-dir DIR whose bridge.toml has one); ${(err as Error).message}`);
      }
    }
    if (token === undefined && !optionalToken) throw new ClientConfigError('--url needs a token: set GCB_TOKEN');
    return { url: flags.url, token };
  }
  const found = readBridgeConfig(configDir);
  const token = envToken ?? found.token;
  if (token === undefined && !optionalToken) throw new ClientConfigError(`${found.path} has no [Bridge] token: set GCB_TOKEN`);
  return { url: found.url, token };
}

export function connect(flags: ConnectFlags, options: Omit<ClientOptions, 'url' | 'token' | 'configDir'> & { env?: NodeJS.ProcessEnv } = {}): BridgeClient {
  const { env, ...clientOptions } = options;
  const { url, token } = resolveConnection(flags, env);
  return new BridgeClient({ ...clientOptions, url, token: token! });
}
