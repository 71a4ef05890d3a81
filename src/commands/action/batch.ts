import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { defineCommand } from '../define.ts';

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

export const BatchArgs = Type.Object(
  {
    commands: Type.Array(BatchItem, { minItems: 1, maxItems: LIMITS.batchMaxItems, description: 'run in this order, back to back in one frame' }),
    stop_on_error: Type.Optional(Type.Boolean({ default: true, description: 'after a failed item, skip the rest' })),
  },
  { additionalProperties: false },
);

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

export const BatchResult = Type.Object({
  results: Type.Array(BatchItemResult, { description: 'one per item, in order' }),
  completed: Type.Integer(),
  failed: Type.Integer(),
  skipped: Type.Integer(),
});

/**
 * decisions §8: up to 32 commands in one admission slot, one queue entry and one frame. The
 * dispatcher runs the items itself (src/dispatch/batch-run.ts); the main loop checks each item
 * before the batch is queued (src/batch/check.ts).
 */
export default defineCommand({
  name: 'batch',
  category: 'action',
  description:
    'Run up to 32 commands in order, back to back in one game frame, with nothing else in between, for one admission ' +
    'slot: faster than separate calls when you have several reads or single actions ready at once, and they see one ' +
    'consistent world. Each item is checked first as if sent alone; any bad item refuses the whole batch, naming it. ' +
    'Items: reads, discovery, spawn, paint_tile, single-pulse invoke_power, pause, resume, set_speed, dismiss_window. ' +
    'The answer has one result per item; with stop_on_error (default true) the items after a failure are skipped.',
  args: BatchArgs,
  result: BatchResult,
  // decisions §8: each item is checked for its own permission and turn; the batch itself needs none.
  permission: {},
  turnGated: false,
  binds: [],
  requiresMainThread: true,
  frameItems: (args) => args.commands.length,
});
