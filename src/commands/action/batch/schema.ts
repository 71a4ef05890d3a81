// decisions §8: what a batch is, the one description of it. Its args and answer types come from
// these schemas; the typed client and docs/commands.md read them too.
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../../../limits.ts';

export const BatchItem = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: LIMITS.idMaxLength,
      description: 'a command that runs whole in one frame (not meta, bus, world loading or saving, screenshot, pulsed invoke_power)',
    }),
    args: Type.Optional(Type.Object({}, { additionalProperties: true, description: "the command's own args, as if sent alone" })),
  },
  { additionalProperties: false },
);
export type BatchItem = Static<typeof BatchItem>;

export const BatchArgs = Type.Object(
  {
    commands: Type.Array(BatchItem, { minItems: 1, maxItems: LIMITS.batchMaxItems, description: 'run in this order, back to back in one frame' }),
    stop_on_error: Type.Optional(Type.Boolean({ default: true, description: 'after a failed item, skip the rest' })),
  },
  { additionalProperties: false },
);
export type BatchArgs = Static<typeof BatchArgs>;

const ItemError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  did_you_mean: Type.Optional(Type.Array(Type.String())),
  exception: Type.Optional(Type.Object({ type: Type.String(), message: Type.String(), stack_top: Type.String() })),
});

export const BatchItemResult = Type.Union([
  Type.Object({ ok: Type.Literal(true), result: Type.Unknown() }),
  Type.Object({ ok: Type.Literal(false), error: ItemError }),
  Type.Object({ ok: Type.Literal(false), skipped: Type.Literal(true) }),
]);
export type BatchItemResult = Static<typeof BatchItemResult>;

export const BatchResult = Type.Object({
  results: Type.Array(BatchItemResult, { description: 'one per item, in order' }),
  completed: Type.Integer(),
  failed: Type.Integer(),
  skipped: Type.Integer(),
});
export type BatchResult = Static<typeof BatchResult>;
