import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DEFAULT_TIMINGS, LIMITS } from '../limits.ts';

// decisions §2: bridge.toml. Defaults and ranges live in the schema; the type comes from it.
export const BridgeSection = Type.Object(
  {
    host: Type.Union([Type.Literal('127.0.0.1'), Type.Literal('localhost')], { default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: LIMITS.portDefault }),
    max_concurrent_requests: Type.Integer({
      minimum: LIMITS.maxConcurrentMin,
      maximum: LIMITS.maxConcurrentMax,
      default: LIMITS.maxConcurrentDefault,
    }),
    token: Type.String({ pattern: `^[A-Za-z0-9]{${LIMITS.tokenLength}}$` }),
    max_body_bytes: Type.Integer({ minimum: 1024, maximum: LIMITS.maxBodyBytesMax, default: LIMITS.maxBodyBytesDefault }),
    event_history: Type.Integer({ minimum: LIMITS.eventHistoryMin, maximum: LIMITS.eventHistoryMax, default: LIMITS.eventHistoryDefault }),
    max_event_streams: Type.Integer({ minimum: LIMITS.maxEventStreamsMin, maximum: LIMITS.maxEventStreamsMax, default: LIMITS.maxEventStreamsDefault }),
    idempotency_budget_mb: Type.Integer({
      minimum: LIMITS.idempotencyBudgetMbMin,
      maximum: LIMITS.idempotencyBudgetMbMax,
      default: LIMITS.idempotencyBudgetMbDefault,
    }),
  },
  { default: {} },
);

export const GameSection = Type.Object(
  {
    suppress_startup_window: Type.Boolean({ default: true }),
    fps: Type.Integer({ minimum: LIMITS.fpsMin, maximum: LIMITS.fpsMax, default: LIMITS.fpsDefault }),
    saves_dir: Type.String({ minLength: 1, default: 'saves' }),
    seed: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, default: 1234 }),
    // decisions §12: realtime advances the world with the frame timer; lockstep only through `step`.
    clock: Type.Union([Type.Literal('realtime'), Type.Literal('lockstep')], { default: 'realtime' }),
    max_savepoints: Type.Integer({ minimum: LIMITS.maxSavepointsMin, maximum: LIMITS.maxSavepointsMax, default: LIMITS.maxSavepointsDefault }),
    // decisions §15: a step gives way after this much game-thread time while another agent's command waits.
    step_slice_ms: Type.Integer({ minimum: LIMITS.stepSliceMsMin, maximum: LIMITS.stepSliceMsMax, default: DEFAULT_TIMINGS.stepSliceMs }),
  },
  { default: {} },
);

export const BridgeToml = Type.Object({
  enabled: Type.Boolean({ default: true }),
  Bridge: BridgeSection,
  Game: GameSection,
});

export type BridgeSection = Static<typeof BridgeSection>;
export type GameSection = Static<typeof GameSection>;
export type BridgeToml = Static<typeof BridgeToml>;

/** The sections and their keys, for the unknown-key warning and error messages. */
export const SECTIONS: Record<string, TSchema> = { Bridge: BridgeSection, Game: GameSection };
