// The light entry for game code: `import { gameRejected, type GameModule } from 'game-control-bridge/game'`.
// A game module is imported in the game thread and again in pool workers, so what it imports must
// load fast and small: this entry brings the error helpers a game throws and the interface types,
// and nothing of the server (no hono, piscina, ajv or MCP SDK; test/library/game-entry.test.ts checks).
// The root entry (`game-control-bridge`) stays the whole library.
export { BridgeError, badArgs, gameRejected, outOfBounds, unknownAsset, type ExceptionInfo } from './errors/bridge-error.ts';
export type { ErrorCode } from './errors/codes.ts';
export type * from './shared/game-module.ts';
