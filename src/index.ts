// The library API (decisions §6).
export { startBridge, SANDBOX_GAME, type BridgeHandle, type BridgeOptions, type BridgeStats } from './bridge.ts';
export { ConfigError } from './config/load.ts';
export { BridgeError, gameRejected, badArgs, outOfBounds, unknownAsset } from './errors/bridge-error.ts';
export { ERROR_STATUS, type ErrorCode } from './errors/codes.ts';
export { DEFAULT_TIMINGS, LIMITS, type Timings } from './limits.ts';
export type * from './shared/game-module.ts';
export { createClient, BridgeClient, BridgeCallError, BridgeConnectionError, ClientConfigError } from './client/index.ts';
