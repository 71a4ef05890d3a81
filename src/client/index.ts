// The typed client library: `import { createClient } from 'game-control-bridge/src/client/index.ts'`.
export {
  BridgeClient,
  createClient,
  type BatchOptions,
  type CallParameters,
  type CapabilitiesChange,
  type Capabilities,
  type ClientOptions,
  type CommandDescriptor,
  type CommandSuccess,
  type HealthObject,
  type RequestOptions,
  type RetryEvent,
} from './client.ts';
export type { BatchableName, BatchItem, BatchItemError, BatchItemResult, BatchResults, CommandArgs, CommandName, CommandResult } from './commands.ts';
export {
  EVENT_STREAM_DEFAULTS,
  EventStream,
  type BridgeEvent,
  type EventStreamOptions,
  type ProgressEvent,
  type StreamConnectedEvent,
  type StreamGapEvent,
  type StreamNotice,
  type StreamReconnectEvent,
} from './events.ts';
export { SseParser, type SseComment, type SseItem, type SseMessage, type SseRetry } from './sse.ts';
export { DEFAULT_CONFIG_DIR, DEFAULT_PORT, readBridgeConfig, type BridgeLocation } from './config.ts';
export { BridgeCallError, BridgeConnectionError, ClientConfigError, type ErrorBody, type ErrorCode, type ExceptionInfo } from './errors.ts';
export { DEFAULT_RETRY, parseRetryAfter, retryDelay, type RetryPolicy } from './retry.ts';
